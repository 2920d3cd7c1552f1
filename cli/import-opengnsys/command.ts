import type { Command } from '../command';
import { UsageError } from '../command';
import { parseOptions } from '../options';
import { KNOWN_SCHEMA_VERSION, LegacySource } from './legacy-source';
import type { LegacySite } from './model';
import { planImport } from './plan/plan';
import { Ledger } from './plan/ledger';
import { StreamProgress } from './progress';
import { readSite } from './readers/site';
import { formatLine, formatSummary } from './report';
import { parseSourceUrl } from './source-url';
import { openTarget } from './target';
import { writeImport } from './write';

/**
 * `ogserve import-opengnsys --from mysql://USER:PASS@HOST:PORT/DBNAME [--config FILE]
 * [--dry-run] [--merge]`: read an OpenGnsys ogServer database, tell row by row what ogserve
 * takes from it and what it refuses and why, and (unless --dry-run) write what it takes in
 * one transaction. Refusals, changes and the counts per table go to stdout; progress and
 * the target's log lines to stderr.
 */
export const importOpengnsys: Command = {
  name: 'import-opengnsys',
  summary: 'import the database of an OpenGnsys ogServer (centers, rooms, clients, images, schedules)',
  usage: [
    'Usage: ogserve import-opengnsys --from mysql://USER:PASS@HOST:PORT/DBNAME [--config FILE] [--dry-run] [--merge]',
    '',
    `Reads the database of an OpenGnsys ogServer (schema version ${KNOWN_SCHEMA_VERSION}, as the reference leaves it), checks every`,
    "row by ogserve's own rules, with the plugins the target config enables, and writes what it keeps in one",
    "transaction, keeping the reference ids, then writes every imported client's boot files. Prints each row",
    'ogserve refuses, or keeps with a change, on one line with the reason, then the counts per table.',
    'Stop ogserve first: the import writes its database directly.',
    '',
    'Options:',
    '  --from URL         the legacy database; without a password in the URL, MYSQL_PWD is used',
    '  -f, --config FILE  the target ogserve config (as for `ogserve serve`)',
    '  --dry-run          check and report only; nothing is written',
    '  --merge            import into an inventory that is not empty: rows whose id it already holds are left',
    '                     as they are there, the rest is added (without it, only an empty inventory is written to)',
  ].join('\n'),
  async run(args) {
    const options = parseOptions(args, {
      values: { '--from': [], '--config': ['-f', '--config-file'] },
      flags: ['--dry-run', '--merge'],
    });
    if (options.positional.length > 0) throw new UsageError(`unexpected argument '${options.positional[0]}'`);
    const from = options.values['--from'];
    if (from === undefined) throw new UsageError('import-opengnsys needs --from mysql://USER:PASS@HOST:PORT/DBNAME');
    const dryRun = options.flags.has('--dry-run');
    const merge = options.flags.has('--merge');
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
    const target = await openTarget(options.values['--config'], process.stderr);
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
      const plan = await planImport(site, target.rules, ledger, progress);
      if (dryRun) {
        out.write(formatSummary(ledger, 'import'));
        out.write(`dry run: nothing was written to ${target.description}\n`);
        return 0;
      }
      const written = await writeImport(target, plan, (line) => process.stderr.write(`${line}\n`));
      out.write(formatSummary(ledger, 'imported'));
      out.write(`imported into ${target.description}; boot files written for ${written.bootFiles} clients\n`);
      for (const failure of written.bootFailures) {
        process.stderr.write(
          `ogserve: the boot files of ${failure.clients} clients in mode ${failure.mode} were not written: ${failure.error}\n`,
        );
      }
      return written.bootFailures.length > 0 ? 1 : 0;
    } finally {
      await target.close();
    }
  },
};
