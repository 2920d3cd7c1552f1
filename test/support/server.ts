import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import './listen-guard';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { DependencyContainer } from 'tsyringe';
import { Value } from '@sinclair/typebox/value';
import type { App } from '../../core/app';
import { dropTestDatabase, testDatabaseSection, testEngine, type TestEngine } from './test-db';
import { createApp } from '../../cli/config';

export const TOKEN = 'test-token';

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** Parsed JSON body (undefined when empty or not JSON). */
  body: any;
}

export interface TestServer {
  app: App;
  port: number;
  /** Temp directory holding the SQLite file and anything else the test writes. */
  dir: string;
  /** Every log line the server wrote, parsed. */
  logs: { level: string; msg: string; [key: string]: unknown }[];
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  get(path: string, body?: unknown): Promise<Reply>;
  post(path: string, body?: unknown): Promise<Reply>;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Config merged over config/default.json (written to a file in the temp dir). */
  config?: Record<string, unknown>;
  /**
   * Reuse an existing temp dir, and with it the same database (restart tests). The caller
   * then owns both: release them with removeTestStore(dir).
   */
  dir?: string;
  /** Parent of the app's container: register test replacements (a clock) here. */
  container?: DependencyContainer;
  /** The database engine; OGSERVE_TEST_DB's by default (benches compare several). */
  engine?: TestEngine;
}

/**
 * A real ogserve on an ephemeral port, on the engine OGSERVE_TEST_DB selects: SQLite in a
 * temp dir, or a fresh database on the MariaDB/PostgreSQL server, dropped on close. Config
 * goes through a real config file, as a site's would.
 */
export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const dir = options.dir ?? makeTestDir();
  const config = deepMerge(
    {
      rest: { ip: '127.0.0.1', port: 0, api_token: TOKEN },
      database: testDatabaseSection(dir, options.engine),
      repository: { directory: path.join(dir, 'images') },
      log: { level: 'info' },
      // Loopback and an ephemeral port, so tests never take 8889 or listen beyond this host.
      agents: { ip: '127.0.0.1', port: 0 },
      ...bootDirsIn(dir, options.config?.plugins),
    },
    options.config ?? {},
  );
  const configFile = path.join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify(config));
  const logs: TestServer['logs'] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) logs.push(JSON.parse(line));
      done();
    },
  });
  let app: App | undefined;
  try {
    // The temp dir is the state directory too: a fresh one creates its fresh database, a
    // restart on the same dir finds both again (test/core/database.test.ts).
    app = await createApp({ configFile, logStream, stateDir: dir, parentContainer: options.container });
    await app.listen();
  } catch (error) {
    await app?.close();
    if (!options.dir) await removeTestStore(dir, options.engine);
    throw error;
  }
  const started = app;
  const port = started.restPort();
  const request = async (method: string, urlPath: string, body?: unknown, headers: Record<string, string> = {}) =>
    checkAnswer(started, method, urlPath, await send(port, method, urlPath, body, { Authorization: TOKEN, ...headers }));
  return {
    app: started,
    port,
    dir,
    logs,
    request,
    get: (p, body) => request('GET', p, body),
    post: (p, body) => request('POST', p, body),
    async close() {
      await started.close();
      if (!options.dir) await removeTestStore(dir, options.engine);
    },
  };
}

/**
 * Every 200 answer a test receives through its server's `request` is checked against the
 * response schema its route declares (the one GET /openapi.json publishes), so the document
 * cannot drift from what the routes answer: a mismatch fails that test, naming the route.
 */
function checkAnswer(app: App, method: string, urlPath: string, reply: Reply): Reply {
  if (reply.status !== 200) return reply;
  const routePath = urlPath.split('?')[0];
  const route = app.routeTable.find((r) => r.method === method && r.path === routePath);
  if (!route?.response || !route.responseType.startsWith('application/json')) return reply;
  const [problem] = Value.Errors(route.response, reply.body);
  if (problem) {
    throw new Error(
      `${method} ${routePath} answered outside its declared response schema: ${problem.path || '/'} ${problem.message}: ${reply.text.slice(0, 300)}`,
    );
  }
  return reply;
}

/** A fresh temp dir for tests that restart servers on the same data (startServer({dir})). */
export function makeTestDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'ogserve-test-'));
}

/** Remove a test's temp dir and drop the database that belongs to it. */
export async function removeTestStore(dir: string, engine: TestEngine = testEngine): Promise<void> {
  rmSync(dir, { recursive: true, force: true });
  await dropTestDatabase(dir, engine);
}

/** A raw HTTP request; GET may carry a JSON body, as the existing clients send it. */
export function send(port: number, method: string, urlPath: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const payload = body === undefined ? undefined : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: urlPath,
        agent: false,
        headers: {
          ...(payload === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) }),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** Boot files and live images go to the temp dir too, never into the checkout's var/. */
function bootDirsIn(dir: string, plugins: unknown): Record<string, unknown> {
  const enabled = (name: string) => !Array.isArray(plugins) || plugins.includes(name);
  const tftp = path.join(dir, 'tftpboot');
  return {
    ...(enabled('pxe-modes') ? { 'pxe-modes': { bios_dir: path.join(tftp, 'menu.lst'), uefi_dir: path.join(tftp, 'grub') } } : {}),
    ...(enabled('live') ? { live: { directory: tftp } } : {}),
  };
}

export function deepMerge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] =
      v && typeof v === 'object' && !Array.isArray(v) && prev && typeof prev === 'object' && !Array.isArray(prev)
        ? deepMerge(prev as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}

/** Run `fn` against a fresh server, closing it whatever happens. */
export async function withServer<T>(fn: (s: TestServer) => Promise<T>, options: StartOptions = {}): Promise<T> {
  const s = await startServer(options);
  try {
    return await fn(s);
  } finally {
    await s.close();
  }
}
