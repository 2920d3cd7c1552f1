import { spawn } from 'node:child_process';
import path from 'node:path';
import { LegacySource } from '../cli/import-opengnsys/legacy-source';
import { Ledger } from '../cli/import-opengnsys/plan/ledger';
import { planImport } from '../cli/import-opengnsys/plan/plan';
import { silentProgress } from '../cli/import-opengnsys/progress';
import { readSite } from '../cli/import-opengnsys/readers/site';
import { parseSourceUrl } from '../cli/import-opengnsys/source-url';
import { makeImportTarget, withImportTarget } from '../test/support/import-target';
import { withLegacyDatabase } from '../test/support/legacy-db';
import { removeTestStore } from '../test/support/server';
import { testEngine } from '../test/support/test-db';
import { fmt, type BenchRow } from './support/report';

/**
 * `ogserve import-opengnsys` on a site of 10,000 computers with 4 partitions each (the
 * hand-written cases of test/fixtures/opengnsys/site.sql beside them), from a legacy
 * database on the loopback MariaDB: reading it in one snapshot, then checking every row by
 * ogserve's rules against a target with every bundled plugin (SQLite, as OGSERVE_TEST_DB
 * selects); then the whole command, as a site runs it, into an empty target.
 */
const computers = 10_000;
const partitions = 4;

export default async function bench(): Promise<BenchRow[]> {
  const built = process.hrtime.bigint();
  return withLegacyDatabase({ bulk: { computers, partitions } }, async (db) => {
    const buildSeconds = Number(process.hrtime.bigint() - built) / 1e9;
    const started = process.hrtime.bigint();
    const source = await LegacySource.open(parseSourceUrl(db.url, {}));
    const site = await readSite(source, silentProgress).finally(() => source.close());
    const read = process.hrtime.bigint();
    const ledger = new Ledger();
    const plan = await withImportTarget({}, (target) => planImport(site, target.rules, ledger, silentProgress));
    const checked = process.hrtime.bigint();
    const readSeconds = Number(read - started) / 1e9;
    const checkSeconds = Number(checked - read) / 1e9;
    const rows = site.clients.length + site.partitions.length;
    const full = await importInto(db.url);
    return [
      full,
      {
        workload: `import-opengnsys --dry-run, ${computers} computers x ${partitions} partitions`,
        figures: {
          computers: plan.clients.length,
          partitions: plan.disks.reduce((n, d) => n + d.entries.length, 0),
          read_s: fmt(readSeconds, 2),
          check_s: fmt(checkSeconds, 2),
          rows_per_s: Math.round(rows / (readSeconds + checkSeconds)),
          rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20),
          fixture_build_s: fmt(buildSeconds, 1),
        },
      },
    ];
  });
}

/** `ogserve import-opengnsys` as a child process into a fresh target: seconds to each phase it announces, and in all. */
async function importInto(url: string): Promise<BenchRow> {
  const { dir, configFile } = await makeImportTarget();
  try {
    const started = process.hrtime.bigint();
    const seconds = () => fmt(Number(process.hrtime.bigint() - started) / 1e9, 2);
    const phases: Record<string, string> = {};
    const mainJs = path.resolve(__dirname, '..', 'cli', 'main.js');
    const child = spawn(process.execPath, [mainJs, 'import-opengnsys', '--from', url, '--config', configFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/writing the inventory/.test(chunk.toString())) phases.planned_s = seconds();
      if (/committing/.test(chunk.toString())) phases.written_s = seconds();
      if (/writing the boot files/.test(chunk.toString())) phases.committed_s = seconds();
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`import-opengnsys failed (${code}): ${stderr}`);
    return {
      workload: `import-opengnsys, ${computers} computers x ${partitions} partitions, into an empty ${testEngine} target`,
      figures: { ...phases, total_s: seconds() },
    };
  } finally {
    await removeTestStore(dir);
  }
}
