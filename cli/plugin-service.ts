import type { InjectionToken } from 'tsyringe';
import { StartupError } from '../core/errors';
import type { CommandLineParts } from '../core/plugin';
import { createApp } from './config';

/** The service a plugin gives the command line under `K` (its definition's `commandLine`). */
export type CommandLineService<K extends keyof CommandLineParts> = CommandLineParts[K] extends abstract new (
  ...args: never[]
) => infer T
  ? T
  : never;

/**
 * Run `fn` with a plugin's service on the database of the config and state directory given
 * (`--config`, `--state-dir`), the app closed after: what `ogserve token` and `ogserve user` do
 * without the server: the service `plugin`'s definition gives the command line under `part`.
 */
export async function withPluginService<K extends keyof CommandLineParts>(
  options: { values: Record<string, string> },
  plugin: string,
  part: K,
  fn: (service: CommandLineService<K>) => Promise<number>,
): Promise<number> {
  const app = await createApp({
    configFile: options.values['--config'],
    stateDir: options.values['--state-dir'],
    logStream: process.stderr,
  });
  try {
    if (!app.plugins.some((enabled) => enabled.name === plugin))
      throw new StartupError(`the ${plugin} plugin is not enabled in this config: add "${plugin}" to "plugins"`);
    const token = app.plugins.find((enabled) => enabled.name === plugin)?.commandLine?.[part];
    if (token === undefined) throw new Error(`plugin '${plugin}' gives the command line no '${part}'`);
    return await fn(app.container.resolve(token as InjectionToken<CommandLineService<K>>));
  } catch (error) {
    // A refused value (a name taken, an unknown role) is a one-line error, like the config's.
    if (error instanceof Error && error.name === 'HttpError') throw new StartupError(error.message);
    throw error;
  } finally {
    await app.close();
  }
}

/** `  limited to centers 2,3 rooms 7`, or nothing for the whole fleet. */
export function describeLimits(view: { centers: number[]; rooms: number[] }): string {
  const limits = [
    ...(view.centers.length ? [`centers ${view.centers.join(',')}`] : []),
    ...(view.rooms.length ? [`rooms ${view.rooms.join(',')}`] : []),
  ];
  return limits.length ? `  limited to ${limits.join(' ')}` : '';
}
