import { existsSync } from 'node:fs';
import path from 'node:path';
import type { TObject } from '@sinclair/typebox';
import { type PluginContext, StartupError, Type } from 'ogserve';

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

declare module 'ogserve' {
  // Type parameters as core declares them: declarations that merge must match.
  interface PluginDefinition<C extends TObject = TObject> {
    /** A view of the web console, shown when the console plugin is enabled. */
    console?: ConsoleView;
  }
}

const View = Type.Object({
  plugin: Type.String(),
  title: Type.Union([Type.String(), Type.Record(Type.String(), Type.String())]),
  entry: Type.String(),
});

/**
 * Serve every enabled plugin's view files (refusing a view whose entry is not one of them),
 * and GET /console-views: where the console finds each view.
 */
export function consoleViews(ctx: PluginContext): void {
  const views = ctx.plugins.flatMap(({ name, console: view }) => {
    if (!view) return [];
    const prefix = `/console/plugins/${name}`;
    const entry = path.resolve(view.dir, view.entry);
    if (!/^[A-Za-z0-9._/-]+\.m?js$/.test(view.entry) || !entry.startsWith(path.resolve(view.dir) + path.sep) || !existsSync(entry))
      throw new StartupError(`console view of plugin '${name}': entry '${view.entry}' is not a .js file inside ${view.dir}`);
    ctx.files(prefix, view.dir);
    return [{ plugin: name, title: view.title, entry: `${prefix}/${view.entry}` }];
  });
  const spec = {
    permission: 'read',
    scoped: 'open',
    bodyPolicy: 'ignored',
    log: false,
    summary: "the enabled plugins' console views",
    response: Type.Object({ views: Type.Array(View) }),
  } as const;
  // Not under /console/: the console's files are served there.
  ctx.router.get('/console-views', spec, () => ({ views }));
}
