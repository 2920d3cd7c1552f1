import { Type } from '@sinclair/typebox';
import { definePlugin } from '../../core/plugin';
import { listScripts } from './scripts';

export default definePlugin({
  name: 'shell',
  config: Type.Object(
    {
      /** Folder whose files GET /shell/list offers as client scripts; created if missing. */
      scripts_dir: Type.String({ default: 'var/client-scripts', path: true }),
    },
    { additionalProperties: false },
  ),
  register(ctx) {
    ctx.router.get('/shell/list', { bodyPolicy: 'ignored' }, async () => ({ scripts: await listScripts(ctx.config.scripts_dir) }));
  },
});
