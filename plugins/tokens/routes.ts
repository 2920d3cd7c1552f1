import { ErrorCode, badRequest, toInt, type PluginContext } from 'ogserve';
import { Revoked, TokenCreate, TokenCreated, TokenList, TokenName } from './schemas';
import { expiryOf, type TokenStore } from './store';

/** GET, POST and DELETE /tokens: managing tokens takes the admin permission. */
export function tokenRoutes(ctx: PluginContext, store: TokenStore): void {
  const { router } = ctx;
  router.get('/tokens', { permission: 'admin', response: TokenList, summary: 'Every API token, without secrets' }, async () => ({
    tokens: await store.list(),
  }));

  router.post(
    '/tokens',
    { permission: 'admin', body: TokenCreate, response: TokenCreated, summary: 'Make a token' },
    async ({ body, em }) => {
      const expiresAt = body.expires === undefined ? null : expiryOf(body.expires, Date.now());
      if (expiresAt === undefined)
        throw badRequest(ErrorCode.invalidField, "'expires' must be a number of days, hours or minutes: 30d, 12h, 90m", 'expires');
      const { view, secret } = await store.create(
        {
          name: body.name,
          role: body.role,
          shell: body.shell ?? false,
          expiresAt,
          centers: body.centers?.map(toInt),
          rooms: body.rooms?.map(toInt),
        },
        em,
      );
      return { ...view, secret };
    },
  );

  router.delete('/tokens', { permission: 'admin', body: TokenName, response: Revoked, summary: 'Revoke a token' }, async ({ body, em }) => {
    if (!(await store.revoke(body.name, undefined, em))) throw badRequest(ErrorCode.unknownId, `no token named '${body.name}'`, 'name');
    return {};
  });
}
