import { readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { within } from './fake-agent';
import { type ChildRun, mainScript, runNode } from './process';
import { TOKEN, deepMerge, send, startServer, type Reply, type TestServer } from './server';

/**
 * The real service as a separate process (`node dist/cli/main.js --config FILE`), for what
 * an in-process server cannot show: its own descriptor limit (`ulimit -n`), its own RSS, a
 * SIGKILL in the middle of a write, a second process on one SQLite file. The site is
 * prepared first with an in-process server on the same directory and database.
 */

export interface ChildServer extends ChildRun {
  pid: number;
  restPort: number;
  /** The same as restPort. */
  port: number;
  agentPort: number;
  /** Every JSON log line the service wrote to stdout. */
  logs: { level: string; msg: string; [key: string]: unknown }[];
  request(method: string, urlPath: string, body?: unknown): Promise<Reply>;
  get(urlPath: string, body?: unknown): Promise<Reply>;
  post(urlPath: string, body?: unknown): Promise<Reply>;
  /** Resident set size now, in KiB (VmRSS of /proc/<pid>/status). */
  rssKiB(): number;
  /** SIGTERM, then SIGKILL after 15 s; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Build the inventory (or anything else) with an in-process server, then close it: its config.json stays in `dir`. */
export async function prepareSite(
  dir: string,
  build: (s: TestServer) => Promise<void>,
  config: Record<string, unknown> = {},
): Promise<void> {
  const s = await startServer({ dir, config: { log: { level: 'warn' }, ...config } });
  try {
    await build(s);
  } finally {
    await s.close();
  }
}

/** A port free on 127.0.0.1 right now (the service gets fixed ports so it can log at warn). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Whether a TCP connection to `port` on 127.0.0.1 is accepted now. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export interface SpawnOptions {
  /** A directory prepared with prepareSite. */
  dir: string;
  /** Merged over the prepared config.json. */
  config?: Record<string, unknown>;
  /** Run under `ulimit -n` this value. */
  descriptorLimit?: number;
  env?: Record<string, string>;
  /** Extra node flags, e.g. --max-semi-space-size. */
  nodeArgs?: string[];
}

export async function spawnServer(options: SpawnOptions): Promise<ChildServer> {
  const [restPort, agentPort] = [await freePort(), await freePort()];
  const base = JSON.parse(readFileSync(path.join(options.dir, 'config.json'), 'utf8')) as Record<string, unknown>;
  const config = deepMerge(deepMerge(base, { rest: { port: restPort }, agents: { port: agentPort } }), options.config ?? {});
  const configFile = path.join(options.dir, 'child-config.json');
  writeFileSync(configFile, JSON.stringify(config));
  const run = runNode(mainScript, ['--config', configFile], {
    env: { ...process.env, ...options.env },
    nodeArgs: options.nodeArgs,
    descriptorLimit: options.descriptorLimit,
  });
  const request = (method: string, urlPath: string, body?: unknown) => send(restPort, method, urlPath, body, { Authorization: TOKEN });
  const pid = run.child.pid!;
  const server: ChildServer = {
    ...run,
    pid,
    restPort,
    port: restPort,
    agentPort,
    get logs() {
      return run.lines.filter(Boolean).map((line) => {
        try {
          return JSON.parse(line) as ChildServer['logs'][number];
        } catch {
          return { level: 'unparsed', msg: line };
        }
      });
    },
    request,
    get: (p, body) => request('GET', p, body),
    post: (p, body) => request('POST', p, body),
    rssKiB: () => Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1] ?? 0),
    stop: () => stop(run),
  };
  try {
    await within(ready(server), 30_000, `the service to answer (stderr: ${run.stderr().slice(0, 500)})`);
  } catch (error) {
    await run.kill();
    throw error;
  }
  return server;
}

async function ready(server: ChildServer): Promise<void> {
  let gone = false;
  void server.exited.then(() => (gone = true));
  for (;;) {
    if (gone) throw new Error('the service exited during startup');
    const r = await server.get('/scopes').catch(() => undefined);
    if (r?.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** SIGTERM, then SIGKILL after 15 s; resolves with the exit code. */
async function stop(run: ChildRun): Promise<number | null> {
  const { child } = run;
  if (child.exitCode !== null || child.signalCode !== null) return run.exited;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  const code = await run.exited;
  clearTimeout(timer);
  return code;
}
