import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http, { type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { DependencyContainer } from 'tsyringe';
import { createApp } from '../cli/config';
import type { App } from '../core/app';
import { connectionPair } from './connection-pair';

export { ManualClock } from './manual-clock';

/**
 * `ogserve/testing`: an ogserve in the test's own process, with the plugins it names, on a
 * SQLite file in a temp directory, answering requests without a port (as Fastify's `inject`):
 * each goes through the REST interface's whole path (key, route, hooks, schema, handler,
 * answer) over an in-memory connection.
 */
export interface TestAppOptions {
  /** What `plugins` lists in a site's config: bundled names, paths, installed package names. */
  plugins: string[];
  /** Config sections merged over the defaults (`{ notes: { max: 3 } }`). */
  config?: Record<string, unknown>;
  /** The parent of the app's container: register replacements (a clock) here. */
  container?: DependencyContainer;
}

/** Who sends a request: the app's configured key (the default), another key, a token made for it, or a local user signed in. */
export interface Caller {
  /** An API key as the Authorization header carries it. */
  key?: string;
  /** A token made for the request by the tokens plugin: its role, and the centers or rooms it is limited to. */
  token?: { role: string; shell?: boolean; centers?: number[]; rooms?: number[] };
  /** A local user made and signed in by the auth plugin (a session cookie and its CSRF value). */
  user?: { username: string; role: string; shell?: boolean; centers?: number[]; rooms?: number[] };
}

export interface InjectRequest extends Caller {
  method: string;
  /** The path, with its query. */
  url: string;
  /** Sent as JSON (a string is sent as it is). */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Injected {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The answer parsed as JSON; undefined when it is not JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: a test reads whatever the route answered, as JSON.parse gives it.
  body: any;
}

export interface TestApp {
  readonly app: App;
  /** The configured key (`rest.api_token`): every right. */
  readonly key: string;
  /** Log lines the app wrote, parsed. */
  readonly logs: { level: string; msg: string; [key: string]: unknown }[];
  inject(request: InjectRequest): Promise<Injected>;
  close(): Promise<void>;
}

/** Start an app for a test; `close()` it at the end (its temp directory goes too). */
export async function startTestApp(options: TestAppOptions): Promise<TestApp> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-testing-'));
  const key = randomBytes(12).toString('hex');
  const logs: TestApp['logs'] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) logs.push(JSON.parse(line));
      done();
    },
  });
  const overrides = {
    // Loopback and ephemeral ports only, for what plugins listen on (agents, TFTP...).
    agents: { ip: '127.0.0.1', port: 0 },
    ...options.config,
    rest: { ip: '127.0.0.1', port: 0, ...(options.config?.rest as object), api_token: key },
    database: { type: 'sqlite', path: path.join(dir, 'ogserve.sqlite') },
    plugins: options.plugins,
  };
  let app: App;
  try {
    app = await createApp({ overrides, stateDir: dir, env: {}, logStream, parentContainer: options.container });
    await app.listen({ rest: false });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const callers = new Map<string, Record<string, string>>();
  const send = (request: InjectRequest, headers: Record<string, string>) => exchange(app.restServer(), request, headers);
  const headersOf = async (caller: Caller): Promise<Record<string, string>> => {
    if (caller.key !== undefined) return { Authorization: caller.key };
    const made = caller.token ? { token: caller.token } : caller.user ? { user: caller.user } : undefined;
    if (!made) return { Authorization: key };
    const id = JSON.stringify(made);
    let headers = callers.get(id);
    if (!headers) {
      headers = made.token
        ? await tokenHeaders(made.token, (r) => send(r, { Authorization: key }))
        : await userHeaders(made.user!, (r, h) => send(r, h ?? { Authorization: key }));
      callers.set(id, headers);
    }
    return headers;
  };
  return {
    app,
    key,
    logs,
    async inject(request) {
      return send(request, { ...(await headersOf(request)), ...request.headers });
    },
    async close() {
      try {
        await app.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

type Send = (request: InjectRequest, headers?: Record<string, string>) => Promise<Injected>;

async function tokenHeaders(token: NonNullable<Caller['token']>, send: Send): Promise<Record<string, string>> {
  const made = await send({ method: 'POST', url: '/tokens', body: { name: `test-${randomBytes(4).toString('hex')}`, ...token } });
  if (made.status !== 200) throw new Error(`ogserve/testing: the token could not be made (is the tokens plugin enabled?): ${made.text}`);
  return { Authorization: made.body.secret };
}

async function userHeaders(user: NonNullable<Caller['user']>, send: Send): Promise<Record<string, string>> {
  const password = randomBytes(12).toString('hex');
  const made = await send({ method: 'POST', url: '/users', body: { ...user, password } });
  if (made.status !== 200) throw new Error(`ogserve/testing: the user could not be made (is the auth plugin enabled?): ${made.text}`);
  const signedIn = await send({ method: 'POST', url: '/auth/login', body: { username: user.username, password } }, {});
  if (signedIn.status !== 200) throw new Error(`ogserve/testing: the user could not sign in: ${signedIn.text}`);
  const cookie = ([] as string[])
    .concat(signedIn.headers['set-cookie'] ?? [])
    .map((c) => c.split(';', 1)[0])
    .join('; ');
  return { Cookie: cookie, 'X-CSRF-Token': signedIn.body.csrf };
}

/** One request over a connection of its own, handed to the server as a client's would be. */
function exchange(server: http.Server, request: InjectRequest, headers: Record<string, string>): Promise<Injected> {
  const [serverSide, clientSide] = connectionPair();
  server.emit('connection', serverSide);
  const payload = request.body === undefined ? undefined : typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        createConnection: () => clientSide,
        method: request.method,
        path: request.url,
        // GET bodies, as the reference's clients send them: Node sends a GET's body without a
        // length unless told one, and the server would read it as a second request.
        headers: {
          ...(payload === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(payload)) }),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
