import type { LoadResult } from './load';

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

/** Throughput and latency of a load run, as every bench row shows them. */
export function loadFigures(r: LoadResult): BenchRow['figures'] {
  return { 'req/s': fmt(r.rps, 0), p50_ms: fmt(r.p50ms, 2), p99_ms: fmt(r.p99ms, 2), errors: r.errors };
}
