/** Column values as the MySQL driver hands them, read into the model's types. */
export type Row = Record<string, unknown>;

export function int(value: unknown): number {
  return value == null ? 0 : Number(value);
}

export function intOrNull(value: unknown): number | null {
  return value == null ? null : Number(value);
}

export function text(value: unknown): string {
  return value == null ? '' : String(value);
}

export function textOrNull(value: unknown): string | null {
  return value == null ? null : String(value);
}

export function flag(value: unknown): boolean {
  return Number(value ?? 0) !== 0;
}

/** A 64-bit column the query cast to text, so that nothing past 2^53 is rounded. */
export function big(value: unknown): bigint {
  return value == null ? 0n : BigInt(String(value));
}
