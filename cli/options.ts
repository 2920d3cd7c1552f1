import { UsageError } from './command';

export interface OptionSpec {
  /** Options that take a value (`--config FILE` or `--config=FILE`), with their short aliases. */
  values?: Record<string, string[]>;
  /** Options that are on or off (`--dry-run`). */
  flags?: string[];
}

export interface ParsedOptions {
  values: Record<string, string>;
  flags: Set<string>;
  /** Arguments that are not options, in order. */
  positional: string[];
}

/**
 * A small, strict option parser: unknown options and options missing their value are
 * refused by name, so a typo never silently falls back to a default.
 */
export function parseOptions(args: string[], spec: OptionSpec): ParsedOptions {
  const names = new Map<string, string>();
  for (const [name, aliases] of Object.entries(spec.values ?? {})) for (const alias of [name, ...aliases]) names.set(alias, name);
  const flags = new Set(spec.flags ?? []);
  const parsed: ParsedOptions = { values: {}, flags: new Set(), positional: [] };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('-') || arg === '-') {
      parsed.positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const key = eq > 0 ? arg.slice(0, eq) : arg;
    const name = names.get(key);
    if (name) {
      const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
      if (value === undefined || value === '' || (eq < 0 && value.startsWith('-'))) throw new UsageError(`${key} needs a value`);
      if (name in parsed.values) throw new UsageError(`${name} is given twice`);
      parsed.values[name] = value;
    } else if (flags.has(key) && eq < 0) {
      parsed.flags.add(key);
    } else {
      throw new UsageError(`unknown option '${arg}'`);
    }
  }
  // The Debian package's /usr/bin/ogserve names the site's file this way, for every command alike.
  const siteConfig = process.env.OGSERVE_CONFIG;
  if (spec.values?.['--config'] && !('--config' in parsed.values) && siteConfig) parsed.values['--config'] = siteConfig;
  return parsed;
}

/**
 * The options every command that opens the site takes: its config and its state directory
 * (where the defaults' relative data paths go: the database, the API key, boot files).
 */
export const siteOptions: Record<string, string[]> = { '--config': ['-f', '--config-file'], '--state-dir': ['-s'] };

/** The two lines of a command's help that describe siteOptions. */
export const siteOptionsHelp = [
  '  -f, --config FILE    the ogserve config (as for `ogserve serve`; default: $OGSERVE_CONFIG)',
  '  -s, --state-dir DIR  its state directory (as for `ogserve serve`; default: $OGSERVE_STATE_DIR, else var/ of the install)',
];

/** `2,3` -> [2, 3]; a usage error for anything but ids. */
export function idList(text: string | undefined, option: string): number[] {
  if (text === undefined) return [];
  if (!/^[1-9][0-9]{0,9}(,[1-9][0-9]{0,9})*$/.test(text)) throw new UsageError(`${option} takes ids separated by commas, e.g. 2 or 2,3`);
  return text.split(',').map(Number);
}
