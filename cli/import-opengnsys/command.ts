import type { Command } from '../command';
import { KNOWN_SCHEMA_VERSION } from './schema-version';

/**
 * `ogserve import-opengnsys --from mysql://USER:PASS@HOST:PORT/DBNAME [--config FILE]
 * [--state-dir DIR] [--default-netmask M] [--dry-run] [--merge]`: read an OpenGnsys ogServer database, tell row by row what ogserve
 * takes from it and what it refuses and why, and (unless --dry-run) write what it takes in
 * one transaction. Refusals, changes and the counts per table go to stdout; progress and
 * the target's log lines to stderr. Its code (and the MySQL driver) is loaded only when it
 * runs: `ogserve serve` does not carry it.
 */
export const importOpengnsys: Command = {
  name: 'import-opengnsys',
  summary: 'import the database of an OpenGnsys ogServer (centers, rooms, clients, images, schedules)',
  usage: [
    'Usage: ogserve import-opengnsys --from mysql://USER:PASS@HOST:PORT/DBNAME [--config FILE] [--state-dir DIR] [--default-netmask M] [--dry-run] [--merge]',
    '',
    `Reads the database of an OpenGnsys ogServer (schema version ${KNOWN_SCHEMA_VERSION}, as the reference leaves it), checks every`,
    "row by ogserve's own rules, with the plugins the target config enables, and writes what it keeps in one",
    "transaction, keeping the reference ids, then writes every imported client's boot files. Prints each row",
    'ogserve refuses, or keeps with a change, on one line with the reason, then the counts per table.',
    'Stop ogserve first: the import writes its database directly.',
    '',
    'Options:',
    '  --from URL           the legacy database; without a password in the URL, MYSQL_PWD is used',
    '  -f, --config FILE    the target ogserve config (as for `ogserve serve`)',
    '  -s, --state-dir DIR  the target state directory (as for `ogserve serve`): where the database, boot files',
    '                       and images of the defaults are; default: $OGSERVE_STATE_DIR, else $STATE_DIRECTORY,',
    '                       else var/ of the install',
    '  --default-netmask M  the netmask of a room that has none (default 255.255.255.0); the room is kept with a note',
    '  --dry-run            check and report only; nothing is written',
    '  --merge              import into an inventory that is not empty: rows whose id it already holds are left',
    '                       as they are there, the rest is added (without it, only an empty inventory is written to)',
    '',
    'Exit codes: 0 every row taken (or left out as ogserve holds it or keeps no such thing); 1 the database or',
    'config cannot be read, the target is not empty without --merge, or a boot file failed; 2 rows were refused',
    '(the rest was written, or with --dry-run would be), or a command-line mistake.',
  ].join('\n'),
  run: async (args) => (await import('./run.js')).runImport(args),
};
