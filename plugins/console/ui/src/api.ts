/** Calls to the ogserve REST API with the signed-in key, and the errors they answer. */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

const keyName = 'ogserve.key';

export const session = {
  get key(): string | null {
    return sessionStorage.getItem(keyName);
  },
  signIn(key: string): void {
    sessionStorage.setItem(keyName, key);
  },
  signOut(): void {
    sessionStorage.removeItem(keyName);
  },
};

type Unauthorized = (message: string) => void;
let onUnauthorized: Unauthorized = () => undefined;

/** What happens on a 401: the app goes back to the sign-in page with the server's message. */
export function whenUnauthorized(handler: Unauthorized): void {
  onUnauthorized = handler;
}

/**
 * One API call. GETs that take a JSON body (the per-client reads) are sent as POST with
 * `X-HTTP-Method-Override: GET`, because browsers cannot put a body on a GET.
 */
export async function api<T = Record<string, unknown>>(
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
  key = session.key,
): Promise<T> {
  const headers: Record<string, string> = { Authorization: key ?? '' };
  let sent = method;
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    if (method === 'GET') {
      sent = 'POST';
      headers['X-HTTP-Method-Override'] = 'GET';
    }
  }
  let response: Response;
  try {
    // No credentials: the key travels in Authorization only, and a 401's Basic challenge must
    // not make the browser pop up its own login box.
    response = await fetch(path, {
      method: sent,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
    });
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
  const error = new ApiError(response.status, parsed.error ?? 'error', parsed.message ?? response.statusText, parsed.field);
  if (response.status === 401 && key === session.key) {
    session.signOut();
    onUnauthorized(error.message);
  }
  throw error;
}

export const get = <T>(path: string, body?: unknown) => api<T>('GET', path, body);
export const post = <T = Record<string, unknown>>(path: string, body?: unknown) => api<T>('POST', path, body);
