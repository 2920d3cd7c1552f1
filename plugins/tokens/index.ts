import { Type } from '@sinclair/typebox';
import { definePlugin } from 'ogserve';
import { TokenEntity } from './entities/token';
import { tokenRoutes } from './routes';
import { TokenStore } from './store';

export { TokenStore, expiryOf, type ScopeMaker } from './store';
export { TokenCreated, TokenList } from './schemas';

/**
 * API tokens besides `rest.api_token`: each with a name, a role and optionally the shell
 * permission and an expiry, kept as a hash. Managed by GET/POST/DELETE /tokens and by
 * `ogserve token`.
 */
export default definePlugin({
  name: 'tokens',
  requires: ['inventory'],
  commandLine: { tokens: TokenStore },
  // 2: centers and rooms; 3: owner (each added from the entity).
  schemaVersion: 3,
  entities: [TokenEntity],
  config: Type.Object(
    {
      /** How often last-use times are written. */
      last_used_flush_s: Type.Number({ minimum: 1, maximum: 3600, default: 60 }),
    },
    { additionalProperties: false },
  ),
  register(ctx) {
    const store = ctx.make(TokenStore);
    // A token revoked through another instance stops working here at once.
    const reread = () => void store.changedElsewhere().catch((error: unknown) => ctx.log.error({ err: error }, 'tokens not read again'));
    ctx.cluster.on('tokens.changed', reread);
    ctx.cluster.onReconnect(reread);
    ctx.provide(TokenStore, store);
    ctx.hooks.authenticate((key) => store.lookup(key));
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
