import { existsSync } from 'node:fs';
import path from 'node:path';
import { StartupError, definePlugin } from 'ogserve';
import { allowedRoutes } from './allowed';
import { consoleViews } from './views';

export type { ConsoleView } from './views';

/** Where `npm run build` puts the console (plugins/console/ui/build.mjs). */
const publicDir = path.join(__dirname, 'public');
/** Built assets carry a content hash in their names, so they can be cached for good. */
const hashedAssets = /^\/assets\/[^/]+-[A-Z0-9]{8}\.(js|css)$/;

/**
 * The web console: a single-page application served at /console/ (GET / leads there) without
 * `Authorization`; every API call it makes carries the key the user signs in with.
 */
export default definePlugin({
  name: 'console',
  register(ctx) {
    if (!existsSync(path.join(publicDir, 'index.html')))
      throw new StartupError(`console: ${publicDir} holds no built console; run npm run build`);
    ctx.files('/console', publicDir, { home: true, immutable: hashedAssets });
    consoleViews(ctx);
    allowedRoutes(ctx);
  },
});
