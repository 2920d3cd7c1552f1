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

/**
 * `ogserve import-opengnsys --from mysql://USER:PASS@HOST:PORT/DBNAME [--config FILE] --dry-run`:
 * read an OpenGnsys ogServer database and tell, row by row, what ogserve takes from it and
 * what it refuses and why. Refusals and changes go to stdout one per line, then the counts
 * per table; progress and the target's log lines go to stderr.
 */
export const importOpengnsys: Command = {
  name: 'import-opengnsys',
  summary: 'read an OpenGnsys ogServer database and show what ogserve would import from it',
  usage: [
    'Usage: ogserve import-opengnsys --from mysql://USER:PASS@HOST:PORT/DBNAME [--config FILE] --dry-run',
    '',
    `Reads the database of an OpenGnsys ogServer (schema version ${KNOWN_SCHEMA_VERSION}, as the reference leaves it) and checks every`,
    "row by ogserve's own rules, with the plugins the target config enables. Prints each row ogserve refuses, or",
    'keeps with a change, on one line with the reason, then the counts per table. Nothing is written.',
    '',
    'Options:',
    '  --from URL         the legacy database; without a password in the URL, MYSQL_PWD is used',
    '  -f, --config FILE  the target ogserve config (as for `ogserve serve`)',
    '  --dry-run          check and report only (required: writing the import is not available yet)',
  ].join('\n'),
  async run(args) {
    const options = parseOptions(args, { values: { '--from': [], '--config': ['-f', '--config-file'] }, flags: ['--dry-run'] });
    if (options.positional.length > 0) throw new UsageError(`unexpected argument '${options.positional[0]}'`);
    const from = options.values['--from'];
    if (from === undefined) throw new UsageError('import-opengnsys needs --from mysql://USER:PASS@HOST:PORT/DBNAME');
    if (!options.flags.has('--dry-run')) throw new UsageError('import-opengnsys writes nothing yet: run it with --dry-run');
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
      out.write(`checking against ${target.description}${target.rules.scheduler ? '' : ' (scheduler plugin not enabled)'}\n`);
      const ledger = new Ledger((line) => out.write(formatLine(line)));
      await planImport(site, target.rules, ledger, progress);
      out.write(formatSummary(ledger, 'import'));
      out.write(`dry run: nothing was written to ${target.description}\n`);
    } finally {
      await target.close();
    }
    return 0;
  },
};
