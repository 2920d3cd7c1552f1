import type { IncomingMessage } from 'node:http';

export const sessionCookie = 'ogserve_session';

/** The value of cookie `name` in the request's Cookie header, or undefined. */
export function cookieOf(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}

/**
 * The Set-Cookie value of a session: HttpOnly (no script reads it), SameSite=Strict (no
 * other site's page sends it), Secure when the request came over HTTPS.
 */
export function sessionCookieHeader(secret: string, maxAgeS: number, secure: boolean): string {
  return [`${sessionCookie}=${secret}`, 'Path=/', `Max-Age=${maxAgeS}`, 'HttpOnly', 'SameSite=Strict', ...(secure ? ['Secure'] : [])].join(
    '; ',
  );
}

/**
 * The challenge of a 401 to a request signed in (or signing in) by cookie: not Basic, which
 * makes a browser open its own login box over the page.
 */
export const cookieChallenge = { 'WWW-Authenticate': 'Cookie realm="ogserve"' } as const;

/** The Set-Cookie value that removes the session cookie. */
export function clearedCookieHeader(secure: boolean): string {
  return sessionCookieHeader('', 0, secure);
}
