import type { IncomingMessage } from 'node:http';
import { type Credential, badRequest, type PluginContext } from 'ogserve';
import { clearedCookieHeader, cookieOf, sessionCookie, sessionCookieHeader } from './cookies';
import { describeReach } from './credential';
import { Done, Login, Me } from './schemas';
import type { LiveSession, SessionLifetimes, SessionStore } from './sessions';
import type { SignIn } from './sign-in';

export interface AuthRouteDeps {
  signIn: SignIn;
  sessions: SessionStore;
  lifetimes: SessionLifetimes;
  /** The session a request's cookie belongs to (the identifier found it). */
  sessionOf(req: IncomingMessage): LiveSession | undefined;
  /** What a session's requests stand for. */
  credentialOf(session: LiveSession): Credential;
}

/** POST /auth/login and /auth/logout, GET /auth/me. */
export function authRoutes(ctx: PluginContext, deps: AuthRouteDeps): void {
  const { router } = ctx;
  const { sessions, lifetimes } = deps;

  router.post(
    '/auth/login',
    { public: true, body: Login, response: Me, summary: 'Sign a person in: sets the session cookie' },
    async ({ body, res, address, secure, em }) => {
      const person = await deps.signIn.check(body.username, body.password, address);
      const { secret, session } = await sessions.open(person.username, person.provider, person.grants, em);
      res.setHeader('Set-Cookie', sessionCookieHeader(secret, Math.floor(lifetimes.absoluteMs / 1000), secure));
      const roles = person.grants.map((grant) => grant.role);
      ctx.log.info({ username: person.username, provider: person.provider, roles, address }, 'signed in');
      return meOf(deps.credentialOf(session), undefined, session, lifetimes);
    },
  );

  router.post(
    '/auth/logout',
    { permission: 'read', scoped: 'open', bodyPolicy: 'ignored', response: Done, summary: "End the caller's session" },
    async ({ req, res, secure, em }) => {
      const session = deps.sessionOf(req);
      if (session) await sessions.end(session.hash, em);
      else if (cookieOf(req, sessionCookie) === undefined)
        throw badRequest('not_a_person', 'only a signed-in person signs out: a key or token is revoked instead');
      res.setHeader('Set-Cookie', clearedCookieHeader(secure));
      return {};
    },
  );

  router.get(
    '/auth/me',
    { permission: 'read', scoped: 'open', log: false, response: Me, summary: 'Who the caller is and what they may do' },
    ({ access, req }) => meOf(access!, access!.permissions, deps.sessionOf(req), lifetimes),
  );
}

/** The answer of GET /auth/me and of a sign-in (which knows no permissions yet: /auth/me lists them). */
function meOf(
  credential: Credential,
  permissions: ReadonlySet<string> | undefined,
  session: LiveSession | undefined,
  lifetimes: SessionLifetimes,
) {
  return {
    name: credential.name,
    ...(session ? { username: session.username } : {}),
    source: credential.source ?? 'token',
    role: credential.role,
    ...(permissions ? { permissions: [...permissions].sort() } : {}),
    scope: describeReach(credential),
    ...(session
      ? {
          csrf: session.csrf,
          expires: new Date(session.createdAt + lifetimes.absoluteMs).toISOString(),
          idle_s: Math.floor(lifetimes.idleMs / 1000),
        }
      : {}),
  };
}
