import { readFile } from 'node:fs/promises';
import type { HttpError } from '../core/errors';
import { type Command, UsageError } from './command';
import { parseOptions, siteOptions, siteOptionsHelp } from './options';
import { type CommandLineService, withPluginService } from './plugin-service';

type DhcpdAnswer = Awaited<ReturnType<CommandLineService<'dhcpdImport'>['importConf']>>['answer'];

const usage = [
  'Usage: ogserve import-dhcpd FILE [--dry-run] [--config FILE] [--state-dir DIR]',
  '',
  'Reads the host blocks of an ISC dhcpd.conf (at the top level or inside group, subnet and',
  'shared-network blocks) and adds each as a client: its name (option host-name, else the',
  "block's name), fixed-address and hardware ethernet, in the room whose network holds the",
  "address (the room's gateway under its netmask, else its clients' addresses). A host is",
  'refused, with its line and reason, when it has no MAC or address, its address is a host',
  'name, no room (or more than one) holds it, its IP or MAC is in the file twice or already',
  'in the inventory, or POST /client/add would refuse it; `include` lines are refused too',
  '(import the included file on its own). The others are added in one transaction. Prints',
  'each refused host on one line, then a summary. Stop ogserve first: the command writes the',
  "config's database itself (a running server keeps its clients in memory, and holds a SQLite",
  "file's lock); while it runs, paste the file in the console (Fleet, Import) instead.",
  '',
  'Options:',
  '  --dry-run            check every host; nothing is written',
  ...siteOptionsHelp,
  '',
  'Exit codes: 0 every host added (or with --dry-run, would be); 1 some hosts were refused (the',
  'others were added, or would be), or the config cannot be opened; 2 the file cannot be read,',
  'is not a dhcpd.conf (an unclosed block or quote, blocks nested over 64 deep, no host blocks),',
  'or a command-line mistake.',
].join('\n');

/** `ogserve import-dhcpd FILE`: the inventory's DhcpdImport service on the config's database. */
export const importDhcpd: Command = {
  name: 'import-dhcpd',
  summary: "add clients from an ISC dhcpd.conf's host blocks",
  usage,
  async run(args) {
    const options = parseOptions(args, { values: siteOptions, flags: ['--dry-run'] });
    if (options.positional.length !== 1) throw new UsageError('import-dhcpd needs one dhcpd.conf file');
    const file = options.positional[0]!;
    const dryRun = options.flags.has('--dry-run');
    let conf: string;
    try {
      conf = await readFile(file, 'utf8');
    } catch (error) {
      process.stderr.write(`ogserve: cannot read ${file}: ${(error as Error).message}\n`);
      return 2;
    }
    return withPluginService(options, 'inventory', 'dhcpdImport', async (dhcpd) => {
      let answer: DhcpdAnswer;
      try {
        ({ answer } = await dhcpd.importConf(conf, dryRun));
      } catch (error) {
        // A file that is not dhcpd.conf (the refusal names `conf`); other refusals are the config's.
        const refused = error as HttpError;
        if (refused?.name !== 'HttpError' || refused.field !== 'conf') throw error;
        process.stderr.write(`ogserve: ${file}: ${refused.message}\n`);
        return 2;
      }
      report(answer);
      return answer.refused > 0 ? 1 : 0;
    });
  },
};

function report(answer: DhcpdAnswer): void {
  for (const row of answer.rows) {
    if (row.ok) continue;
    const host = row.ip || row.mac ? `host ${row.name} (${[row.ip, row.mac].filter(Boolean).join(', ')})` : row.name || 'statement';
    process.stdout.write(`line ${row.line}: ${host}: ${row.field ? `${row.field}: ` : ''}${row.message}\n`);
  }
  for (const warning of answer.warnings ?? []) process.stderr.write(`warning: ${warning}\n`);
  const hosts = answer.rows.length;
  const added = answer.dry_run ? `${answer.added} would be added` : `${answer.added} added`;
  const note = answer.dry_run ? ' (dry run: nothing written)' : '';
  process.stdout.write(`${hosts} ${hosts === 1 ? 'entry' : 'entries'}: ${added}, ${answer.refused} refused${note}\n`);
}
