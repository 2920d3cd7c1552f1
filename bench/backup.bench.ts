import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';
import { fillSite, makeSite } from '../test/support/backup-site';
import { mainScript } from '../test/support/process';
import { removeTestStore } from '../test/support/server';
import { testEngine } from '../test/support/test-db';
import { fmt, type BenchRow } from './support/report';

/**
 * `ogserve backup` and `ogserve restore` of a site of 10,000 clients, each with 4 partitions,
 * 20 software lines and 10 hardware lines, and a history (5 audit entries and 2 scheduler
 * actions per client), and the same at a tenth of the size, on the engine OGSERVE_TEST_DB selects (SQLite by default): each
 * command as a child process, its time, its peak resident memory (getrusage) and the file.
 */
function site(clients: number): Record<string, number> {
  return {
    clients,
    partitions: clients * 4,
    client_software: clients * 20,
    client_hardware: clients * 10,
    audit_log: clients * 5,
    actions: clients * 2,
  };
}

/** A tenth of the site first: peak memory that stays put between the two says the commands stream. */
export default async function bench(): Promise<BenchRow[]> {
  const sizes = (process.env.BACKUP_BENCH_CLIENTS ?? '1000,10000').split(',').map(Number);
  const rows: BenchRow[] = [];
  for (const clients of sizes) rows.push(...(await measure(clients)));
  return rows;
}

async function measure(clients: number): Promise<BenchRow[]> {
  const big = site(clients);
  const source = makeSite(testEngine);
  const target = makeSite(testEngine);
  try {
    const filled = process.hrtime.bigint();
    const written = await fillSite(source, 20, big);
    const rows = [...written.values()].reduce((n, t) => n + t.length, 0);
    const fillSeconds = Number(process.hrtime.bigint() - filled) / 1e9;
    const file = path.join(source.dir, 'site.backup');
    const backup = await timed(['backup', '--to', file, ...source.args]);
    const restore = await timed(['restore', '--from', file, ...target.args]);
    const size = statSync(file).size;
    const what = `${clients} clients, ${rows} rows, ${testEngine}`;
    return [
      {
        workload: `backup, ${what}`,
        figures: {
          s: fmt(backup.seconds, 2),
          rows_per_s: Math.round(rows / backup.seconds),
          peak_rss_mb: backup.peakMiB,
          file_mb: fmt(size / 2 ** 20, 1),
          bytes_per_row: fmt(size / rows, 1),
          fill_s: fmt(fillSeconds, 1),
        },
      },
      {
        workload: `restore into an empty ${testEngine}, ${what}`,
        figures: { s: fmt(restore.seconds, 2), rows_per_s: Math.round(rows / restore.seconds), peak_rss_mb: restore.peakMiB },
      },
    ];
  } finally {
    await removeTestStore(source.dir, source.engine);
    await removeTestStore(target.dir, target.engine);
  }
}

/** Run `ogserve <args>` as a child: seconds to its exit and its peak resident memory in MiB. */
async function timed(args: string[]): Promise<{ seconds: number; peakMiB: number }> {
  const started = process.hrtime.bigint();
  const heap = process.env.BACKUP_BENCH_HEAP_MB ? [`--max-old-space-size=${process.env.BACKUP_BENCH_HEAP_MB}`] : [];
  const child = spawn(process.execPath, [...heap, '-r', path.join(__dirname, 'support', 'peak-memory.js'), mainScript, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (code !== 0) throw new Error(`ogserve ${args[0]} failed (${code}): ${stderr}`);
  const peak = /peak_rss_kib=(\d+)/.exec(stderr);
  return { seconds, peakMiB: peak ? Math.round(Number(peak[1]) / 1024) : Number.NaN };
}
