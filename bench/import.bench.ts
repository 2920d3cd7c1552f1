import { LegacySource } from '../cli/import-opengnsys/legacy-source';
import { Ledger } from '../cli/import-opengnsys/plan/ledger';
import { planImport } from '../cli/import-opengnsys/plan/plan';
import { silentProgress } from '../cli/import-opengnsys/progress';
import { readSite } from '../cli/import-opengnsys/readers/site';
import { parseSourceUrl } from '../cli/import-opengnsys/source-url';
import { withImportTarget } from '../test/support/import-target';
import { withLegacyDatabase } from '../test/support/legacy-db';
import { fmt, type BenchRow } from './support/report';

/**
 * `ogserve import-opengnsys` on a site of 10,000 computers with 4 partitions each (the
 * hand-written cases of test/fixtures/opengnsys/site.sql beside them), from a legacy
 * database on the loopback MariaDB: reading it in one snapshot, then checking every row by
 * ogserve's rules against a target with every bundled plugin (SQLite, as OGSERVE_TEST_DB
 * selects). Writing comes with the writer.
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
    return [
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
