import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { mainScript } from './process';
import { TOKEN, type Reply } from './server';

/**
 * A network of its own for PCs that boot from ogserve with real firmware: a network namespace
 * the test makes (and removes), holding a bridge with the server's address, a tap device per
 * VM on it (qemu joins the bridge through it: PXE's DHCP and TFTP are UDP, which qemu's user
 * network does not forward), a private Kea (kea-dhcp4 on the bridge, its Control Agent on the
 * namespace's loopback) and ogserve itself, run as `node dist/cli/main.js` inside. The test
 * reaches ogserve's REST interface through a Unix socket (socat in the namespace): the
 * machine's own network sees none of it, and nothing listens on its ports.
 */

/** Why a namespace lab cannot run here, or undefined. */
export function labUnavailable(): string | undefined {
  if (process.getuid?.() !== 0)
    return 'it makes a network namespace, a bridge and tap devices and runs Kea and qemu in them: run as root (CI does)';
  return undefined;
}

/** The bridge's network: the server is .1, PCs are given their inventory addresses. */
export const labNet = { prefix: '10.77.0', server: '10.77.0.1', netmask: '255.255.255.0' };
/** ogserve's ports inside the namespace (never the defaults); TFTP and DHCP must be on theirs, for the firmware. */
const ports = { rest: 18888, agents: 18889, keaAgent: 18000 };

export interface NetnsLab {
  ns: string;
  dir: string;
  /** ogServe's REST interface, through the namespace's socket. */
  request(method: string, urlPath: string, body?: unknown): Promise<Reply>;
  get(urlPath: string, body?: unknown): Promise<Reply>;
  post(urlPath: string, body?: unknown): Promise<Reply>;
  /** ogserve's log lines so far. */
  logs(): { level: string; msg: string; [key: string]: unknown }[];
  /** A tap device on the bridge, for one VM. */
  tap(): string;
  /** Run a command inside the namespace (killed when the lab closes). */
  spawn(command: string, args: string[], options?: { stdio?: ('ignore' | 'pipe')[] }): ChildProcess;
  /** The REST port PCs reach (on the bridge's address). */
  restPort: number;
  close(): Promise<void>;
}

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/**
 * Make the namespace, start Kea and ogserve in it on `dir` (a state directory whose
 * config.json a test server wrote, so the same database and folders), with `config` merged.
 */
export async function startNetnsLab(dir: string, config: Record<string, unknown>): Promise<NetnsLab> {
  const ns = `ogt-${process.pid}-${randomBytes(3).toString('hex')}`;
  const children: ChildProcess[] = [];
  let taps = 0;
  const spawnIn = (command: string, args: string[], options: { stdio?: ('ignore' | 'pipe')[] } = {}) => {
    const child = spawn('ip', ['netns', 'exec', ns, command, ...args], { stdio: options.stdio ?? ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    return child;
  };
  const close = async () => {
    for (const child of children.reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(timer);
    }
    try {
      ip('netns', 'del', ns);
    } catch {}
  };
  try {
    ip('netns', 'add', ns);
    ip('-n', ns, 'link', 'set', 'lo', 'up');
    // No forwarding delay: a VM's first DHCP packets go through at once.
    ip('-n', ns, 'link', 'add', 'br0', 'type', 'bridge', 'forward_delay', '0');
    ip('-n', ns, 'addr', 'add', `${labNet.server}/24`, 'brd', '+', 'dev', 'br0');
    // A port with a carrier from the start, so that Kea finds the bridge running before any VM.
    ip('-n', ns, 'link', 'add', 'carrier0', 'type', 'veth', 'peer', 'name', 'carrier1');
    ip('-n', ns, 'link', 'set', 'carrier0', 'master', 'br0', 'up');
    ip('-n', ns, 'link', 'set', 'carrier1', 'up');
    ip('-n', ns, 'link', 'set', 'br0', 'up');

    const kea = path.join(dir, 'kea');
    mkdirSync(kea, { recursive: true });
    const socket = path.join(kea, 'kea4.sock');
    const keaConfig = path.join(kea, 'kea-dhcp4.conf');
    writeFileSync(
      keaConfig,
      JSON.stringify({
        Dhcp4: {
          'interfaces-config': { interfaces: ['br0'], 'dhcp-socket-type': 'raw' },
          'control-socket': { 'socket-type': 'unix', 'socket-name': socket },
          'lease-database': { type: 'memfile', name: path.join(kea, 'leases4.csv'), 'lfc-interval': 0 },
          'valid-lifetime': 600,
          subnet4: [],
          loggers: [{ name: 'kea-dhcp4', output_options: [{ output: path.join(kea, 'kea-dhcp4.log') }], severity: 'INFO' }],
        },
      }),
    );
    const agentConfig = path.join(kea, 'kea-ctrl-agent.conf');
    writeFileSync(
      agentConfig,
      JSON.stringify({
        'Control-agent': {
          'http-host': '127.0.0.1',
          'http-port': ports.keaAgent,
          'control-sockets': { dhcp4: { 'socket-type': 'unix', 'socket-name': socket } },
          loggers: [{ name: 'kea-ctrl-agent', output_options: [{ output: path.join(kea, 'kea-ctrl-agent.log') }], severity: 'WARN' }],
        },
      }),
    );
    const keaEnv = `KEA_PIDFILE_DIR=${kea} KEA_LOCKFILE_DIR=${kea}`;
    spawnIn('sh', ['-c', `${keaEnv} exec /usr/sbin/kea-dhcp4 -c ${keaConfig}`]);
    spawnIn('sh', ['-c', `${keaEnv} exec /usr/sbin/kea-ctrl-agent -c ${agentConfig}`]);

    // ogserve, with the dhcp and tftp plugins on, listening in the namespace.
    const childConfig = path.join(dir, 'netns-config.json');
    const base = JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(
      childConfig,
      JSON.stringify({
        ...base,
        ...config,
        rest: { ...(base.rest as object), ip: labNet.server, port: ports.rest },
        agents: { ip: '127.0.0.1', port: ports.agents },
        tftp: { ip: labNet.server, port: 69, ...((config.tftp as object) ?? {}) },
        dhcp: {
          control_agent: `http://127.0.0.1:${ports.keaAgent}/`,
          next_server: labNet.server,
          debounce_ms: 50,
          ...((config.dhcp as object) ?? {}),
        },
      }),
    );
    const lines: string[] = [];
    const server = spawnIn('env', [`OGSERVE_STATE_DIR=${dir}`, process.execPath, mainScript, '--config', childConfig]);
    let pending = '';
    server.stdout!.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const parts = pending.split('\n');
      pending = parts.pop()!;
      lines.push(...parts.filter(Boolean));
    });
    let errors = '';
    server.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    const restSocket = path.join(dir, 'rest.sock');
    spawnIn('socat', [`UNIX-LISTEN:${restSocket},fork,unlink-early`, `TCP:${labNet.server}:${ports.rest}`]);

    const request = (method: string, urlPath: string, body?: unknown) => viaSocket(restSocket, method, urlPath, body);
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (server.exitCode !== null) throw new Error(`ogserve exited in the namespace: ${errors} ${lines.slice(-5).join('\n')}`);
      const ready = existsSync(restSocket) ? await request('GET', '/scopes').catch(() => undefined) : undefined;
      if (ready?.status === 200) break;
      if (Date.now() > deadline) throw new Error(`ogserve did not answer in the namespace: ${errors} ${lines.slice(-5).join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return {
      ns,
      dir,
      request,
      get: (p, body) => request('GET', p, body),
      post: (p, body) => request('POST', p, body),
      logs: () =>
        lines.map((line) => {
          try {
            return JSON.parse(line);
          } catch {
            return { level: 'unparsed', msg: line };
          }
        }),
      tap() {
        const name = `tap${taps++}`;
        ip('-n', ns, 'tuntap', 'add', 'dev', name, 'mode', 'tap');
        ip('-n', ns, 'link', 'set', name, 'master', 'br0', 'up');
        return name;
      },
      spawn: spawnIn,
      restPort: ports.rest,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** One REST request through a Unix socket, with the test key. */
function viaSocket(socketPath: string, method: string, urlPath: string, body?: unknown): Promise<Reply> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        socketPath,
        method,
        path: urlPath,
        headers: {
          Authorization: TOKEN,
          ...(payload === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) }),
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
          } catch {}
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
