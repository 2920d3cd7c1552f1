/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('the median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * The chance that a value drawn from `a` is larger than one drawn from `b`, ties counting
 * half: the Mann-Whitney U statistic divided by |a|·|b|. 0.5 when neither tends to be larger;
 * 1 or 0 when the two do not overlap at all. It reads ranks only, so a few values slowed by
 * a busy machine move it little, where they would move a mean.
 */
export function chanceLarger(a: readonly number[], b: readonly number[]): number {
  let larger = 0;
  for (const x of a) for (const y of b) larger += x > y ? 1 : x === y ? 0.5 : 0;
  return larger / (a.length * b.length);
}
