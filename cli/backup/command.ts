import type { Command } from '../command';

/**
 * `ogserve backup` and `ogserve restore`: a site (every enabled plugin's tables, the boot
 * files, the generated key, the config file) in one checked file, and back onto an empty
 * database of any engine. Their code is loaded only when they run.
 */
export const backup: Command = {
  name: 'backup',
  summary: 'write a backup of the database, boot files, API key and config to one file, while ogserve runs',
  usage: [
    'Usage: ogserve backup --to FILE [--config FILE] [--state-dir DIR]',
    '       ogserve backup --to-dir DIR [--keep N] [--config FILE] [--state-dir DIR]',
    '',
    "Copies every enabled plugin's tables from one consistent snapshot of the database (ogserve may keep",
    'running and writing), then the boot files, the generated API key (rest.api_token_file) and the config',
    'file, into one gzip file with a manifest (release, engine, plugins and schema versions, rows per table)',
    'and a sha256 per part. It is written as it is read: memory stays flat however big the site. The file',
    'appears under its name only once complete; a backup never overwrites a file.',
    '',
    'Options:',
    '  --to FILE            the backup file to write',
    '  --to-dir DIR         write DIR/ogserve-<date>.backup (UTC, to the millisecond): a nightly timer uses this',
    '  --keep N             with --to-dir: then remove all but the newest N such files of DIR (nothing else there)',
    '  -f, --config FILE    the config of the site (as for `ogserve serve`)',
    '  -s, --state-dir DIR  its state directory (as for `ogserve serve`)',
    '',
    'Exit codes: 0 written; 1 the database or a file could not be read (no backup file is left); 2 a usage mistake.',
  ].join('\n'),
  run: async (args) => (await import('./backup.js')).runBackup(args),
};

export const restore: Command = {
  name: 'restore',
  summary: 'restore a backup onto an empty database of any engine (SQLite to PostgreSQL moves a site)',
  usage: [
    'Usage: ogserve restore --from FILE [--config FILE] [--state-dir DIR] [--force] [--check] [--config-to FILE]',
    '',
    'Reads the whole backup and checks it (format, sha256 of every part, the manifest) before it writes anything:',
    'a truncated, altered or foreign file is refused with one line. Then it creates the schema on the database the',
    "config names (any engine, whatever the backup's was) and inserts every row in one transaction, keeping ids;",
    'PostgreSQL sequences are moved past the largest id. A restore stopped midway (killed, a lost connection)',
    'leaves the database as it was. The boot files and the API key are written once the rows are committed.',
    'Stop ogserve first. The backup must come from this release (the same plugin schema versions).',
    '',
    'Options:',
    '  --from FILE          the backup file',
    '  -f, --config FILE    the config of the target (its database.* says where to restore)',
    '  -s, --state-dir DIR  the target state directory (as for `ogserve serve`)',
    '  --force              restore into a database that holds data: everything it holds is replaced',
    '  --check              check the file and that it fits the target; write nothing',
    "  --config-to FILE     also write the backup's config file there (the target's own config is never changed)",
    '',
    'Exit codes: 0 restored (or checked); 1 the file is refused, the target holds data, or a write failed (nothing',
    'was restored); 2 a usage mistake.',
  ].join('\n'),
  run: async (args) => (await import('./restore.js')).runRestore(args),
};
