import { isNetmask } from '../../core/formats';
import { UsageError } from '../command';
import { parseOptions } from '../options';
import { LegacySource } from './legacy-source';
import type { LegacySite } from './model';
import { planImport } from './plan/plan';
import { REFERENCE_NETMASK } from './plan/context';
import { Ledger } from './plan/ledger';
import { StreamProgress } from './progress';
import { readSite } from './readers/site';
import { formatLine, formatSummary } from './report';
import { parseSourceUrl } from './source-url';
import { openTarget } from './target';
import { writeImport } from './write';

/** What `ogserve import-opengnsys` does (command.ts says what it is). */
export async function runImport(args: string[]): Promise<number> {
  const options = parseOptions(args, {
    values: { '--from': [], '--config': ['-f', '--config-file'], '--state-dir': ['-s'], '--default-netmask': [] },
    flags: ['--dry-run', '--merge'],
  });
  if (options.positional.length > 0) throw new UsageError(`unexpected argument '${options.positional[0]}'`);
  const from = options.values['--from'];
  if (from === undefined) throw new UsageError('import-opengnsys needs --from mysql://USER:PASS@HOST:PORT/DBNAME');
  const dryRun = options.flags.has('--dry-run');
  const merge = options.flags.has('--merge');
  const defaultNetmask = options.values['--default-netmask'] ?? REFERENCE_NETMASK;
  if (!isNetmask(defaultNetmask))
    throw new UsageError(`--default-netmask: '${defaultNetmask}' is not a netmask (255.255.255.0, 255.255.0.0...)`);
  const url = parseSourceUrl(from);
  const out = process.stdout;
  const progress = new StreamProgress(process.stderr);
  // The source first: reading it changes nothing, and it is what most often needs fixing.
  const source = await LegacySource.open(url);
  let site: LegacySite;
  try {
    out.write(`reading ${source.description} (schema version ${source.schemaVersion})\n`);
    site = await readSite(source, progress);
  } finally {
    await source.close();
  }
  const target = await openTarget(options.values['--config'], process.stderr, { stateDir: options.values['--state-dir'], dryRun });
  try {
    if (target.contents.length > 0 && !merge) {
      process.stderr.write(
        `ogserve: ${target.description} already holds ${target.contents.join(', ')}: import into an empty inventory, ` +
          'or run with --merge to add what it lacks (rows are matched by id; those it holds are left as they are)\n',
      );
      return 1;
    }
    target.yieldTo(site);
    out.write(`checking against ${target.description}${target.rules.scheduler ? '' : ' (scheduler plugin not enabled)'}\n`);
    const ledger = new Ledger((line) => out.write(formatLine(line)));
    const plan = await planImport(site, target.rules, ledger, progress, { defaultNetmask });
    if (dryRun) {
      out.write(formatSummary(ledger, 'import'));
      const why = target.untouched ? ', which holds no ogserve yet: checked against an empty inventory' : '';
      out.write(`dry run: nothing was written to ${target.description}${why}\n`);
      return refusalCode(ledger);
    }
    const written = await writeImport(target, plan, (line) => process.stderr.write(`${line}\n`));
    out.write(formatSummary(ledger, 'imported'));
    out.write(`imported into ${target.description}; boot files written for ${written.bootFiles} clients\n`);
    for (const failure of written.bootFailures) process.stderr.write(`ogserve: ${failure}\n`);
    return written.bootFailures.length > 0 ? 1 : refusalCode(ledger);
  } finally {
    await target.close();
  }
}

/**
 * 2 when rows were refused (a script running the import must not take a partial move for a
 * whole one), with a line on stderr after the summary; 0 when every row was taken or left
 * out for a reason of ogserve's (a row it holds, a kind it does not keep).
 */
function refusalCode(ledger: Ledger): number {
  const refused = ledger.lines.filter((line) => line.kind === 'refused').length;
  if (refused === 0) return 0;
  process.stderr.write(`ogserve: ${refused} row${refused === 1 ? '' : 's'} refused (listed above, counted in the summary): exit code 2\n`);
  return 2;
}
