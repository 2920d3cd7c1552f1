import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { within } from './fake-agent';
import { TOKEN, deepMerge, send, startServer, type Reply, type TestServer } from './server';

/**
 * The real service as a separate process (`node dist/cli/main.js --config FILE`), for what
 * an in-process server cannot show: its own descriptor limit (`ulimit -n`), its own RSS.
 * The site is prepared first with an in-process server on the same directory and database.
 */

export interface ChildServer {
  pid: number;
  restPort: number;
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
  const main = path.join(__dirname, '..', '..', 'cli', 'main.js');
  const node = [process.execPath, ...(options.nodeArgs ?? []), main, '--config', configFile]
    .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
    .join(' ');
  // exec keeps the pid: the RSS and limits read are the service's, not bash's.
  const script = options.descriptorLimit ? `ulimit -n ${options.descriptorLimit} && exec ${node}` : `exec ${node}`;
  const child = spawn('bash', ['-c', script], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } });
  const logs: ChildServer['logs'] = [];
  let stderr = '';
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      try {
        if (line) logs.push(JSON.parse(line));
      } catch {
        logs.push({ level: 'unparsed', msg: line });
      }
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const request = (method: string, urlPath: string, body?: unknown) => send(restPort, method, urlPath, body, { Authorization: TOKEN });
  const server: ChildServer = {
    pid: child.pid!,
    restPort,
    agentPort,
    logs,
    request,
    get: (p, body) => request('GET', p, body),
    post: (p, body) => request('POST', p, body),
    rssKiB: () => Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${child.pid}/status`, 'latin1'))?.[1] ?? 0),
    stop: () => stop(child, exited),
  };
  try {
    await within(ready(server, exited), 30_000, `the service to answer (stderr: ${stderr.slice(0, 500)})`);
  } catch (error) {
    await stop(child, exited);
    throw error;
  }
  return server;
}

async function ready(server: ChildServer, exited: Promise<number | null>): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  for (;;) {
    if (gone) throw new Error('the service exited during startup');
    const r = await server.get('/scopes').catch(() => undefined);
    if (r?.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function stop(child: ChildProcess, exited: Promise<number | null>): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return exited;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  const code = await exited;
  clearTimeout(timer);
  return code;
}
