import type { IncomingMessage } from 'node:http';
import { ErrorCode, badRequest, Reply, type PluginContext } from 'ogserve';
import { cookieOf, sessionCookieHeader } from './cookies';
import { grantsOfGroups } from './group-rights';
import { OidcRefusal, type OidcProvider } from './oidc';
import { pendingLifetimeMs } from './pending-sign-ins';
import { Providers } from './schemas';
import type { SessionLifetimes, SessionStore } from './sessions';

const pendingCookie = 'ogserve_oidc';
/** Where a signed-in person lands, and where a refusal is shown. */
const consolePath = '/console/';

/**
 * The cookie of a sign-in under way. Lax, unlike the session's: the provider's redirect
 * back is a navigation from another site, which a Strict cookie would not come with. Sent to
 * that provider's callback only.
 */
function pendingCookieHeader(name: string, secret: string, maxAgeS: number, secure: boolean): string {
  const parts = [`${pendingCookie}=${secret}`, `Path=/auth/oidc/${name}/`, `Max-Age=${maxAgeS}`, 'HttpOnly', 'SameSite=Lax'];
  return [...parts, ...(secure ? ['Secure'] : [])].join('; ');
}

/** `GET /auth/providers`, and for each OpenID provider `GET /auth/oidc/<name>/login` and `/callback`. */
export function oidcRoutes(ctx: PluginContext, providers: OidcProvider[], sessions: SessionStore, lifetimes: SessionLifetimes): void {
  const { router } = ctx;
  router.get(
    '/auth/providers',
    { public: true, log: false, response: Providers, summary: 'How people may sign in: a password, and each OpenID provider' },
    () => ({
      password: true,
      providers: providers.map(({ settings }) => ({ name: settings.name, label: settings.label ?? settings.name })),
    }),
  );

  for (const provider of providers) {
    const { name } = provider.settings;
    // The browser is on its way through the provider: it lands on the sign-in page, which shows why.
    const refused = (error: OidcRefusal): Reply => {
      ctx.log.warn({ provider: name, reason: error.message }, 'an OpenID sign-in did not succeed');
      return Reply.redirect(`${consolePath}?signin_error=${encodeURIComponent(error.message)}`);
    };
    const redirectUri = (req: IncomingMessage, secure: boolean): string => {
      if (provider.settings.redirect_uri) return provider.settings.redirect_uri;
      if (!req.headers.host) throw badRequest(ErrorCode.invalidField, 'the request has no Host header to send the provider back to');
      return `${secure ? 'https' : 'http'}://${req.headers.host}/auth/oidc/${name}/callback`;
    };

    router.get(
      `/auth/oidc/${name}/login`,
      { public: true, summary: `Sign in with ${name}: on to the provider` },
      async ({ req, res, secure, em }) => {
        try {
          const { url, secret } = await provider.begin(redirectUri(req, secure), em);
          res.setHeader('Set-Cookie', pendingCookieHeader(name, secret, pendingLifetimeMs / 1000, secure));
          return Reply.redirect(url);
        } catch (error) {
          if (!(error instanceof OidcRefusal)) throw error;
          return refused(error);
        }
      },
    );

    router.get(
      `/auth/oidc/${name}/callback`,
      { public: true, summary: `Back from ${name}: the session, or why not` },
      async ({ req, res, secure, em }) => {
        const cleared = pendingCookieHeader(name, '', 0, secure);
        try {
          const callback = new URL(req.url ?? '', redirectUri(req, secure));
          const person = await provider.finish(cookieOf(req, pendingCookie), callback, em);
          const grants = grantsOfGroups(person.groups, provider.settings.groups);
          if (grants.length === 0)
            throw new OidcRefusal(`'${person.username}' is in no group that ogserve gives a role to: ask an administrator`);
          const { secret } = await sessions.open(person.username, name, grants, em);
          res.setHeader('Set-Cookie', [cleared, sessionCookieHeader(secret, Math.floor(lifetimes.absoluteMs / 1000), secure)]);
          ctx.log.info({ username: person.username, provider: name, roles: grants.map((g) => g.role) }, 'signed in');
          return Reply.redirect(consolePath);
        } catch (error) {
          if (!(error instanceof OidcRefusal)) throw error;
          res.setHeader('Set-Cookie', cleared);
          return refused(error);
        }
      },
    );
  }
}
