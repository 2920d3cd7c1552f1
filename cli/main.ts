#!/usr/bin/env node
import { StartupError } from '../core/errors';
import { release } from '../core/version';
import { type Command, UsageError } from './command';
import { commands, defaultCommand } from './commands';

/**
 * `ogserve [command] [options]`: the program's entry. Without a command it serves, so
 * `ogserve --config FILE` behaves as it always did.
 */
function help(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'Usage: ogserve [command] [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}${c === defaultCommand ? ' (the default)' : ''}`),
    '',
    'Options:',
    '  -f, --config FILE    merge FILE over config/default.json (default: $OGSERVE_CONFIG, which the Debian package sets)',
    '  -s, --state-dir DIR  where the database, the API key and boot files go (default: $OGSERVE_STATE_DIR, else var/ of the install)',
    "  -h, --help           show this help, or a command's with `ogserve <command> --help`",
    '  -V, --version        print the version',
    '',
    'The commands that open the site (serve, backup, restore, import-*, token, user, live) take --config and --state-dir.',
  ].join('\n');
}

async function main(args: string[]): Promise<number> {
  const [first, ...rest] = args;
  if (first === '--help' || first === '-h' || first === 'help') {
    const named = rest[0] ? commands.find((c) => c.name === rest[0]) : undefined;
    process.stdout.write(`${named ? named.usage : help()}\n`);
    return 0;
  }
  if (first === '--version' || first === '-V') {
    process.stdout.write(`ogserve ${release}\n`);
    return 0;
  }
  const named = first !== undefined && !first.startsWith('-') ? commands.find((c) => c.name === first) : undefined;
  if (first !== undefined && !first.startsWith('-') && !named) throw new UsageError(`unknown command '${first}'`);
  const command: Command = named ?? defaultCommand;
  const commandArgs = named ? rest : args;
  if (commandArgs.includes('--help') || commandArgs.includes('-h')) {
    process.stdout.write(`${command.usage}\n`);
    return 0;
  }
  return command.run(commandArgs);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`ogserve: ${error.message} (see ogserve --help)\n`);
      process.exit(2);
    }
    const message = error instanceof StartupError ? error.message : ((error as Error).stack ?? String(error));
    process.stderr.write(`ogserve: ${message}\n`);
    // A failed start closed what it opened; a handle some library left behind must not keep
    // the process waiting. (Writes to stderr are synchronous for files and pipes.)
    process.exit(1);
  },
);
