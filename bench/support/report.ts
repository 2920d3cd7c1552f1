/** One row of `npm run bench` output: a workload and its figures. */
export interface BenchRow {
  workload: string;
  figures: Record<string, string | number>;
}

/** A bench module (`bench/<name>.bench.ts`) default-exports one of these. */
export type Bench = () => Promise<BenchRow[]>;

export function fmt(value: number, digits = 1): string {
  return value.toFixed(digits);
}
