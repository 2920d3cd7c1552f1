import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { importPlugins, orderPlugins } from '../core/loader';
import { release } from '../core/version';
import { type Command, UsageError } from './command';
import { Config } from './config';
import { parseOptions } from './options';

/**
 * `ogserve plugins [--config FILE]`: the plugins the config enables, in load order, each with
 * where it was loaded from and its version: what a site checks after installing one. They are
 * loaded with the checks of a start (their definition, requires, entities), without the database.
 */
export const plugins: Command = {
  name: 'plugins',
  summary: 'list the enabled plugins: load order, where each comes from, its version',
  usage: [
    'Usage: ogserve plugins [--config FILE] [--state-dir DIR]',
    '',
    'Loads the plugins the config enables as a start does (bundled names, paths, npm packages),',
    'without opening the database, and prints one line each in load order:',
    '  <name>  <version>  <bundled | the file it was loaded from>  [requires ...]',
    'A plugin that cannot be loaded is an error naming it (exit 1).',
  ].join('\n'),
  async run(args) {
    const options = parseOptions(args, { values: { '--config': ['-f'], '--state-dir': [] } });
    if (options.positional.length > 0) throw new UsageError(`unexpected argument '${options.positional[0]}'`);
    const config = new Config(options.values['--config'], {}, { stateDir: options.values['--state-dir'] });
    const imported = await importPlugins(config.core.plugins, config.baseDirOf('plugins'));
    const origins = new Map(imported.map(({ definition, from }) => [definition.name, from]));
    const ordered = orderPlugins(imported.map((p) => p.definition));
    const width = Math.max(...ordered.map((d) => d.name.length));
    for (const definition of ordered) {
      const from = origins.get(definition.name)!;
      // Its release: ogserve's for a bundled plugin, its package's for another, if it has one.
      const version = from === 'bundled' ? release : versionNear(from);
      const requires = definition.requires?.length ? `  requires ${definition.requires.join(', ')}` : '';
      process.stdout.write(`${definition.name.padEnd(width)}  ${version ?? '-'}  ${from}${requires}\n`);
    }
    return 0;
  },
};

/** The version in the package.json nearest above a plugin's file, if any. */
function versionNear(file: string): string | undefined {
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) return (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version;
  }
  return undefined;
}
