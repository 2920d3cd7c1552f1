import { existsSync } from 'node:fs';
import path from 'node:path';
import { StartupError } from './errors';
import type { StaticMounts } from './http/static';
import type { PluginDefinition } from './plugin';

/**
 * A plugin's view in the web console. `dir` is served at `/console/plugins/<name>/`; `entry`
 * is the ES module there that the console imports when the view is opened. Its default export
 * is `mount(element, context)`, which draws into `element` and may return a function that
 * undoes it. `context` has `api(method, path, body?)` (the signed-in user's API calls), `lang`
 * and `selection` (the addresses of the selected clients).
 */
export interface ConsoleView {
  /** The name in the console's menu: one string, or one per language (`{en, es}`). */
  title: string | Record<string, string>;
  /** Directory of the view's files. */
  dir: string;
  /** The module to import, relative to `dir` (e.g. `view.js`). */
  entry: string;
}

/** Where the console finds a view: what GET /version lists. */
export function consoleViewEntry(plugin: string, view: ConsoleView): { title: ConsoleView['title']; entry: string } {
  return { title: view.title, entry: `${viewPrefix(plugin)}/${view.entry}` };
}

const viewPrefix = (plugin: string) => `/console/plugins/${plugin}`;

/** Mount every plugin's view files, refusing a view whose entry is not one of them. */
export function mountConsoleViews(statics: StaticMounts, plugins: PluginDefinition[]): void {
  for (const { name, console: view } of plugins) {
    if (!view) continue;
    const entry = path.resolve(view.dir, view.entry);
    if (!/^[A-Za-z0-9._/-]+\.m?js$/.test(view.entry) || !entry.startsWith(path.resolve(view.dir) + path.sep) || !existsSync(entry))
      throw new StartupError(`console view of plugin '${name}': entry '${view.entry}' is not a .js file inside ${view.dir}`);
    statics.add(name, viewPrefix(name), view.dir);
  }
}
