import { saveBlob } from './csv';
/** Calls to the ogserve REST API as the signed-in caller (an API key, or a person's session cookie), and the errors they answer. */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    /** Seconds to wait before trying again (Retry-After of a 429). */
    readonly retryAfter?: number,
    /** The whole JSON answer, for refusals that say more than a message (a CSV import's rows). */
    readonly answer?: unknown,
  ) {
    super(message);
  }
}

/**
 * How a request says who sends it: the API key in Authorization, or the session cookie that
 * a password sign-in set (HttpOnly: the browser sends it, no script reads it) with the CSRF
 * token the server asks of every request that is not a GET.
 */
export type Credentials = { key: string } | { csrf: string };

const keyName = 'ogserve.key';
/** Marks a tab signed in by password; the CSRF token is asked of GET /auth/me again after a reload. */
const cookieName = 'ogserve.signin';

function kept(): Credentials | null {
  const key = sessionStorage.getItem(keyName);
  if (key) return { key };
  return sessionStorage.getItem(cookieName) === 'session' ? { csrf: '' } : null;
}

let current: Credentials | null = kept();

export const session = {
  /** How this tab is signed in, or null. */
  get current(): Credentials | null {
    return current;
  },
  /** The key stays in sessionStorage: this tab only, gone when it closes. */
  useKey(key: string): void {
    sessionStorage.removeItem(cookieName);
    sessionStorage.setItem(keyName, key);
    current = { key };
  },
  /** Only a marker is stored; the cookie holds the session and the token lives in memory. */
  useCookie(csrf: string): void {
    sessionStorage.removeItem(keyName);
    sessionStorage.setItem(cookieName, 'session');
    current = { csrf };
  },
  signOut(): void {
    sessionStorage.removeItem(keyName);
    sessionStorage.removeItem(cookieName);
    current = null;
  },
};

type Unauthorized = (message: string, by: Credentials) => void;
let onUnauthorized: Unauthorized = () => undefined;

/** What happens on a 401: the app goes back to the sign-in page with the server's message. */
export function whenUnauthorized(handler: Unauthorized): void {
  onUnauthorized = handler;
}

/**
 * Who a request is sent as: the tab's credentials, others being tried, null for a sign-in
 * (no credentials yet, but the cookie it sets is kept), or 'public' for a read anyone may make.
 */
export type Sender = Credentials | null | 'public';

/** The headers and credentials mode a request is sent with, as `as` signs it. */
function signed(as: Sender, sentMethod: string): { headers: Record<string, string>; credentials: RequestCredentials } {
  // Nothing at all: a 401 to a request that may carry cookies makes a browser ask for a password itself.
  if (as === 'public') return { headers: {}, credentials: 'omit' };
  // No credentials with a key: it travels in Authorization only, and a stale cookie stays home.
  if (as && 'key' in as) return { headers: { Authorization: as.key }, credentials: 'omit' };
  // The cookie (none yet for a sign-in, which sets it): a POST, even one standing for a GET, needs the token.
  const headers: Record<string, string> = as && sentMethod !== 'GET' ? { 'X-CSRF-Token': as.csrf } : {};
  return { headers, credentials: 'same-origin' };
}

/**
 * One API call, as the signed-in caller unless `as` says otherwise (null: nobody, for the
 * sign-in itself; 'public': nobody, and no cookie either). GETs that take a JSON body (the per-client reads) are sent as POST with
 * `X-HTTP-Method-Override: GET`, because browsers cannot put a body on a GET.
 */
export async function api<T = Record<string, unknown>>(
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
  as: Sender = current,
): Promise<T> {
  const sent = body !== undefined && method === 'GET' ? 'POST' : method;
  const { headers, credentials } = signed(as, sent);
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (sent !== method) headers['X-HTTP-Method-Override'] = 'GET';
  let response: Response;
  try {
    response = await fetch(path, { method: sent, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials });
  } catch (error) {
    throw new ApiError(0, 'network', (error as Error).message);
  }
  const text = await response.text();
  let parsed: { error?: string; message?: string; field?: string };
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {
    parsed = { error: 'invalid_answer', message: text.slice(0, 200) };
  }
  if (response.ok) return parsed as T;
  const wait = Number(response.headers.get('Retry-After') ?? Number.NaN);
  const error = new ApiError(
    response.status,
    parsed.error ?? 'error',
    parsed.message ?? response.statusText,
    parsed.field,
    Number.isFinite(wait) ? wait : undefined,
    parsed,
  );
  // Only the tab's own credentials going stale signs it out, not a key being tried at sign-in.
  if (response.status === 401 && as && as === current) {
    session.signOut();
    onUnauthorized(error.message, as);
  }
  throw error;
}

export const get = <T>(path: string, body?: unknown) => api<T>('GET', path, body);
export const post = <T = Record<string, unknown>>(path: string, body?: unknown) => api<T>('POST', path, body);

/** Save what a GET answers (a CSV report) as a file, fetched as the signed-in caller. */
export async function download(path: string, filename: string): Promise<void> {
  const { headers, credentials } = signed(current, 'GET');
  const response = await fetch(path, { headers, credentials });
  if (!response.ok) {
    const parsed = (await response.json().catch(() => ({}))) as { error?: string; message?: string; field?: string };
    throw new ApiError(response.status, parsed.error ?? 'error', parsed.message ?? response.statusText, parsed.field);
  }
  saveBlob(await response.blob(), filename);
}
