import { Type } from '@sinclair/typebox';
import { definePlugin } from '../../core/plugin';
import { TokenEntity } from './entities/token';
import { tokenRoutes } from './routes';
import { TokenStore } from './store';

export { TokenStore, expiryOf, type TokenView } from './store';

/**
 * API tokens besides `rest.api_token`: each with a name, a role and optionally the shell
 * permission and an expiry, kept as a hash. Managed by GET/POST/DELETE /tokens and by
 * `ogserve token`.
 */
export default definePlugin({
  name: 'tokens',
  schemaVersion: 1,
  entities: [TokenEntity],
  config: Type.Object(
    {
      /** How often last-use times are written. */
      last_used_flush_s: Type.Number({ minimum: 1, maximum: 3600, default: 60 }),
    },
    { additionalProperties: false },
  ),
  register(ctx) {
    const store = new TokenStore(ctx.db);
    ctx.provide(TokenStore, store);
    ctx.acceptKeys((key) => store.lookup(key));
    tokenRoutes(ctx, store);
    let timer: NodeJS.Timeout | undefined;
    ctx.onStart(async () => {
      await store.list();
      timer = setInterval(
        () => void store.flushUse().catch((error: unknown) => ctx.log.error({ err: error }, 'token use not written')),
        ctx.config.last_used_flush_s * 1000,
      );
      timer.unref();
    });
    ctx.onStop(async () => {
      clearInterval(timer);
      await store.flushUse();
    });
  },
});
