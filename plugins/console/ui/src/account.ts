import { ApiError, api, session } from './api';
import { enabled, server } from './plugins';
import { Store } from './store';
import type { ConsoleViewInfo, Me, SignInWays, VersionInfo } from './types';

/** Who is signed in, as GET /auth/me says; null while unknown (only the auth plugin can say it). */
export const me = new Store<Me | null>(null);

/** Whether the signed-in caller may manage users: an admin, on a server with the auth plugin. */
export function managesUsers(info: VersionInfo | null, who: Me | null): boolean {
  return enabled(info, 'auth') && !!who?.permissions?.includes('admin');
}

/** The console opens on what the server offers and on who the caller is (with a session, its CSRF token again). */
async function open(info: VersionInfo): Promise<void> {
  const who = enabled(info, 'auth') ? await api<Me>('GET', '/auth/me') : null;
  if (who?.csrf) session.useCookie(who.csrf);
  const [{ views }, { routes }, site] = await Promise.all([
    api<{ views: ({ plugin: string } & ConsoleViewInfo)[] }>('GET', '/console-views'),
    api<{ routes: string[] }>('GET', '/console-access'),
    enabled(info, 'inventory')
      ? api<{ time_zone: string; source: string }>('GET', '/site').catch(() => undefined)
      : Promise.resolve(undefined),
  ]);
  const viewOf = (name: string) => views.find((view) => view.plugin === name);
  me.set(who);
  server.set({
    ...info,
    plugins: info.plugins.map(({ name }) => ({ name, console: viewOf(name) })),
    allowed: new Set(routes),
    timeZone: site?.time_zone,
    timeZoneSource: site?.source,
  });
}

/** Credentials kept but not yet working are forgotten, so that a reload does not try them again. */
async function opening(steps: () => Promise<void>): Promise<void> {
  try {
    await steps();
  } catch (error) {
    session.signOut();
    throw error;
  }
}

/** The key is tried on GET /version before it is kept. */
export function signInWithKey(key: string): Promise<void> {
  return opening(async () => {
    const info = await api<VersionInfo>('GET', '/version', undefined, { key });
    session.useKey(key);
    await open(info);
  });
}

/** POST /auth/login sets the cookie and answers the CSRF token; the password is kept nowhere. */
export function signInWithPassword(username: string, password: string): Promise<void> {
  return opening(async () => {
    const answer = await api<Me>('POST', '/auth/login', { username, password }, null);
    session.useCookie(answer.csrf ?? '');
    await open(await api<VersionInfo>('GET', '/version'));
  });
}

/**
 * How people may sign in, from GET /auth/providers (asked with no cookie, as anyone may).
 * A server without the auth plugin does not know the route (a 404, or a 401 asking for the
 * key): then only the key. A server that does not answer gets both usual ways offered, and
 * the sign-in itself says what is wrong.
 */
export async function signInWays(): Promise<SignInWays> {
  try {
    return await api<SignInWays>('GET', '/auth/providers', undefined, 'public');
  } catch (error) {
    if (error instanceof ApiError && error.status >= 400 && error.status < 500) return { password: false, providers: [] };
    return { password: true, providers: [] };
  }
}

/**
 * On to an OpenID provider: a navigation (the provider shows its own pages), which ends on
 * /console/ again with the session's cookie set, or with `?signin_error=`. The tab is marked
 * signed in by cookie first, so that the console looks for the session when it is back.
 */
export function signInWithProvider(name: string): void {
  session.useCookie('');
  location.assign(`/auth/oidc/${encodeURIComponent(name)}/login`);
}

/**
 * Why a sign-in through a provider was refused, as the server sent the browser back
 * (`/console/?signin_error=<message>`), or undefined when it was not. The query leaves the address
 * bar, so that a reload or a bookmark does not say it again, and the mark of the tab goes.
 */
export function takeSignInError(): string | undefined {
  const params = new URLSearchParams(location.search);
  const message = params.get('signin_error');
  if (message === null) return undefined;
  params.delete('signin_error');
  const query = params.toString();
  history.replaceState(history.state, '', `${location.pathname}${query ? `?${query}` : ''}${location.hash}`);
  session.signOut();
  return message;
}

/**
 * After a reload (or back from a provider): the key kept in this tab, or the cookie, which GET /auth/me finds the token
 * of again. Kept when the server does not answer (it may be restarting); a 401 forgets it.
 */
export async function resume(): Promise<void> {
  await open(await api<VersionInfo>('GET', '/version'));
}

/** Forgets the key, or ends the session on the server (POST /auth/logout clears the cookie). */
export async function signOut(): Promise<void> {
  const was = session.current;
  // Forgotten first: a 401 of the logout (a session already ended) is no news to show.
  session.signOut();
  if (was && 'csrf' in was) await api('POST', '/auth/logout', undefined, was).catch(() => undefined);
  me.set(null);
  server.set(null);
}
