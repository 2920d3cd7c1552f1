import type { IncomingMessage } from 'node:http';
import { type Clock, SystemClock, ErrorCode, HttpError, StartupError, definePlugin } from 'ogserve';
import { Inventory } from '../inventory';
import { TokenStore } from '../tokens';
import { authRoutes } from './auth-routes';
import { AuthConfig } from './config';
import { cookieChallenge, cookieOf, sessionCookie } from './cookies';
import { credentialOf } from './credential';
import { PendingSignInEntity } from './entities/pending-sign-in';
import { SessionEntity } from './entities/session';
import { UserEntity } from './entities/user';
import { OidcProvider } from './oidc';
import { oidcRoutes } from './oidc-routes';
import { ownTokenRoutes } from './own-tokens';
import { PendingSignIns } from './pending-sign-ins';
import { PasswordHasher } from './passwords';
import { type LiveSession, SessionStore } from './sessions';
import { SignIn } from './sign-in';
import { AuthClock } from './clock';
import { SignInThrottle } from './sign-in-throttle';
import { userRoutes } from './user-routes';
import { UserStore } from './users';

export { AuthClock } from './clock';

/** Methods that change nothing: a cookie alone is enough for them. */
const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * People sign in as themselves: local users with passwords, or a directory's accounts
 * (`auth.ldap`), mapped to the roles and scopes tokens have. A sign-in opens a session held
 * in an HttpOnly cookie; API keys and tokens in Authorization work as before.
 */
export default definePlugin({
  name: 'auth',
  requires: ['inventory', 'tokens'],
  commandLine: { users: UserStore },
  schemaVersion: 1,
  entities: [UserEntity, SessionEntity, PendingSignInEntity],
  config: AuthConfig,
  async register(ctx) {
    const inventory = ctx.use(Inventory);
    const { config } = ctx;
    const clock = ctx.service<Clock>(AuthClock, () => new SystemClock());
    const now = () => clock.now();
    const sessions = ctx.make(SessionStore);
    const { lifetimes } = sessions;
    const tokens = ctx.use(TokenStore);
    const endAccess = async (username: string, alsoTokens: boolean) => {
      await sessions.endUser(username);
      ctx.cluster.broadcast('auth.sessions-ended', { username });
      if (alsoTokens) await tokens.revokeOwned(`${username}@local`);
    };
    ctx.cluster.on<{ username: string }>('auth.sessions-ended', ({ username }) => sessions.forgetUser(username));
    const hasher = new PasswordHasher(config.parallel_checks);
    const users = new UserStore(
      ctx.db,
      hasher,
      async (centers, rooms) => void (await inventory.scopeOf(centers, rooms)),
      config.min_password_length,
      endAccess,
      now,
    );
    ctx.provide(UserStore, users);
    const throttle = ctx.make(SignInThrottle);
    const ldap = config.ldap;
    // Loaded only here: a site without a directory never has the LDAP client in memory.
    const { LdapDirectory } = ldap ? await import('./ldap-directory.js') : { LdapDirectory: undefined };
    const signIn = new SignIn(
      users,
      throttle,
      ctx.log,
      config.wrong_answer_ms,
      ldap && LdapDirectory && { directory: new LdapDirectory(ldap, ctx.log), groups: ldap.groups, normalise: LdapDirectory.normaliseDn },
    );

    const credentialFor = (session: LiveSession) =>
      credentialOf(
        session,
        (centers, rooms) => inventory.fleetScope(centers, rooms),
        () => sessions.holds(session.hash),
      );
    const sessionByRequest = new WeakMap<IncomingMessage, LiveSession>();
    ctx.hooks.identify(async (req) => {
      const secret = cookieOf(req, sessionCookie);
      if (!secret) return undefined;
      const session = await sessions.find(secret);
      if (!session) throw new HttpError(401, ErrorCode.unauthorized, 'the session has ended: sign in again', undefined, cookieChallenge);
      // SameSite=Strict keeps other sites' pages from sending the cookie; the token is the second lock.
      if (!safeMethods.has(req.method ?? '') && req.headers['x-csrf-token'] !== session.csrf)
        throw new HttpError(403, ErrorCode.forbidden, 'a request signed in by cookie must send X-CSRF-Token, as the sign-in answered it');
      sessionByRequest.set(req, session);
      return credentialFor(session);
    });

    authRoutes(ctx, { signIn, sessions, lifetimes, credentialOf: credentialFor, sessionOf: (req) => sessionByRequest.get(req) });
    userRoutes(ctx, users);
    ownTokenRoutes(ctx, tokens, (req) => sessionByRequest.get(req), config.token_max_days);
    const pending = ctx.make(PendingSignIns);
    const names = config.oidc.map((provider) => provider.name);
    const twice = names.find((name, i) => names.indexOf(name) !== i);
    if (twice) throw new StartupError(`auth.oidc: two providers are named '${twice}'`);
    const providers = config.oidc.map((settings) => new OidcProvider(settings, pending, ctx.log));
    oidcRoutes(ctx, providers, sessions, lifetimes);

    let timer: NodeJS.Timeout | undefined;
    const flush = () =>
      Promise.all([sessions.flush(), pending.prune()]).catch((error: unknown) =>
        ctx.log.error({ err: error }, 'session times not written'),
      );
    ctx.onStart(() => {
      timer = setInterval(flush, config.seen_flush_s * 1000);
      timer.unref();
    });
    ctx.onStop(async () => {
      clearInterval(timer);
      await flush();
    });
  },
});
