import type { IncomingMessage } from 'node:http';
import { ErrorCode, badRequest, type PluginContext, toInt } from 'ogserve';
import { TokenCreated, TokenList, type TokenStore, expiryOf } from '../tokens';
import { highestRole, isWholeFleet, rankOf, reachOf } from './grant';
import { Done, OwnToken, OwnTokenName } from './schemas';
import type { LiveSession } from './sessions';

const dayMs = 86_400_000;

/**
 * A person's own API tokens (a script on their laptop): GET, POST and DELETE /auth/tokens.
 * A token gets at most its maker's rights: no higher role, the shell only if they have it,
 * and their part of the fleet (or less). Its name starts with the maker's (`ana.laptop`), so
 * the audit log names them; it must expire, within `token_max_days`; disabling or removing a
 * local user revokes theirs.
 */
export function ownTokenRoutes(
  ctx: PluginContext,
  tokens: TokenStore,
  sessionOf: (req: IncomingMessage) => LiveSession | undefined,
  maxDays: number,
): void {
  const { router } = ctx;
  const person = (req: IncomingMessage): LiveSession => {
    const session = sessionOf(req);
    // 400, not 403: the caller may call the route, but as what it is there is nothing to do.
    if (!session)
      throw badRequest('not_a_person', 'only a signed-in person has tokens of their own: an admin manages the others at /tokens');
    return session;
  };
  const ownerOf = (session: LiveSession) => `${session.username}@${session.provider}`;

  router.get(
    '/auth/tokens',
    { permission: 'read', scoped: 'open', response: TokenList, summary: "The caller's own tokens" },
    async ({ req }) => ({
      tokens: await tokens.list(ownerOf(person(req))),
    }),
  );

  router.post(
    '/auth/tokens',
    {
      permission: 'read',
      scoped: 'open',
      audit: true,
      body: OwnToken,
      response: TokenCreated,
      summary: 'Make a token with at most the caller’s rights',
    },
    async ({ req, body, em }) => {
      const session = person(req);
      const role = body.role ?? highestRole(session.grants);
      // The grants that allow such a token: its role or more, and the shell if it asks for it.
      const allowing = session.grants.filter((grant) => rankOf(grant.role) >= rankOf(role));
      if (allowing.length === 0)
        throw badRequest(ErrorCode.invalidField, `'role' may be at most yours (${highestRole(session.grants)})`, 'role');
      const giving = body.shell ? allowing.filter((grant) => grant.shell) : allowing;
      if (giving.length === 0) throw badRequest(ErrorCode.invalidField, "'shell': you may not run shell commands with that role", 'shell');
      const reach = reachOf(giving);
      const limited = !isWholeFleet(reach);
      if (limited && (body.centers !== undefined || body.rooms !== undefined))
        throw badRequest(
          ErrorCode.invalidField,
          "'centers' and 'rooms': your tokens reach what you reach",
          body.centers ? 'centers' : 'rooms',
        );
      const now = Date.now();
      const expiresAt = expiryOf(body.expires ?? '30d', now);
      if (expiresAt === undefined)
        throw badRequest(ErrorCode.invalidField, "'expires' must be a number of days, hours or minutes: 30d, 12h, 90m", 'expires');
      if (expiresAt - now > maxDays * dayMs) throw badRequest(ErrorCode.invalidField, `'expires' may be at most ${maxDays}d`, 'expires');
      const { view, secret } = await tokens.create(
        {
          name: `${session.username}.${body.name}`,
          role,
          shell: body.shell ?? false,
          expiresAt,
          centers: limited ? reach.centers : body.centers?.map(toInt),
          rooms: limited ? reach.rooms : body.rooms?.map(toInt),
          owner: ownerOf(session),
        },
        em,
      );
      return { ...view, secret };
    },
  );

  router.delete(
    '/auth/tokens',
    { permission: 'read', scoped: 'open', audit: true, body: OwnTokenName, response: Done, summary: 'Revoke one of the caller’s tokens' },
    async ({ req, body, em }) => {
      const session = person(req);
      if (!(await tokens.revoke(body.name, ownerOf(session), em)))
        throw badRequest(ErrorCode.unknownId, `you have no token named '${body.name}'`, 'name');
      return {};
    },
  );
}
