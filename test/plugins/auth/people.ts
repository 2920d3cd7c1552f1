import { type Reply, type TestServer, send } from '../../support/server';

/** A person signed in through POST /auth/login: their cookie and CSRF token, and requests sent with them. */
export interface Person {
  cookie: string;
  csrf: string;
  answer: Reply;
  /** A request with the cookie, and the CSRF token unless `csrf: false`. */
  request(method: string, path: string, body?: unknown, options?: { csrf?: boolean }): Promise<Reply>;
}

/** Make a local user through POST /users (as the configured key). */
export async function addUser(s: TestServer, username: string, role: string, extra: Record<string, unknown> = {}): Promise<void> {
  const made = await s.post('/users', { username, password: passwordOf(username), role, ...extra });
  if (made.status !== 200) throw new Error(`POST /users ${username}: ${made.status} ${made.text}`);
}

/** The test password of a user name: long enough for the default minimum. */
export function passwordOf(username: string): string {
  return `${username}-correct-horse`;
}

export function login(port: number, username: string, password: string, headers: Record<string, string> = {}): Promise<Reply> {
  return send(port, 'POST', '/auth/login', { username, password }, headers);
}

/** Sign in and fail the test unless it works. */
export async function signIn(port: number, username: string, password = passwordOf(username)): Promise<Person> {
  const answer = await login(port, username, password);
  if (answer.status !== 200) throw new Error(`sign-in of ${username}: ${answer.status} ${answer.text}`);
  const cookie = String(answer.headers['set-cookie']?.[0] ?? '').split(';')[0]!;
  const csrf = answer.body.csrf as string;
  return {
    cookie,
    csrf,
    answer,
    request: (method, path, body, options = {}) =>
      send(port, method, path, body, { Cookie: cookie, ...(options.csrf === false ? {} : { 'X-CSRF-Token': csrf }) }),
  };
}
