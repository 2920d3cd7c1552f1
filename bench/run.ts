import { readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Bench, BenchRow } from './support/report';

/**
 * `npm run bench [name ...]`: runs every bench/<name>.bench.ts (or the named ones) and
 * prints one line per workload. Figures, not assertions: benchmarks never fail a build.
 */
async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const files = readdirSync(__dirname)
    .filter((f) => f.endsWith('.bench.js'))
    .filter((f) => wanted.length === 0 || wanted.includes(f.replace(/\.bench\.js$/, '')))
    .sort();
  console.log(
    `# ogserve bench: node ${process.version}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${new Date().toISOString()}`,
  );
  for (const file of files) {
    const bench = (require(path.join(__dirname, file)) as { default: Bench }).default;
    const rows: BenchRow[] = await bench();
    for (const row of rows) {
      console.log(
        `${row.workload.padEnd(48)} ${Object.entries(row.figures)
          .map(([k, v]) => `${k}=${v}`)
          .join('  ')}`,
      );
    }
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
