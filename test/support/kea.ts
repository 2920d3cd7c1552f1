// System needs: kea
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './child-server';

/**
 * A real ISC Kea for one test: kea-dhcp4 on 127.0.0.1 with its server and client ports moved
 * off 67/68 (`-p`, `-P`), its configuration, memfile lease file, pid and lock files and
 * control socket in a temporary folder, and kea-ctrl-agent on a free loopback port in front
 * of it. Never the system's Kea or /etc/kea. The configuration holds what a site wrote and
 * ogserve must leave alone: a subnet of its own with a pool, a global option and the
 * lease_cmds hook, a client class.
 */
export interface Kea {
  /** http://127.0.0.1:<port>/ : the Control Agent, for `dhcp.control_agent`. */
  url: string;
  /** The port kea-dhcp4 listens on (a relay sends there). */
  serverPort: number;
  /** The port kea-dhcp4 answers relays on. */
  clientPort: number;
  /** The site's own subnet, as written in the configuration. */
  siteSubnet: string;
  /** The configuration file kea-dhcp4 was started with (config-write writes it). */
  configFile: string;
  /** One Control Agent command to dhcp4; its answer. */
  command(command: string, args?: Record<string, unknown>): Promise<{ result: number; text?: string; arguments?: any }>;
  /** How many times kea-dhcp4 received `command` since it first started (its log). */
  received(command: string): number;
  /** Stop kea-dhcp4 (the agent stays, and answers that it cannot forward). */
  stopServer(): Promise<void>;
  /** Start kea-dhcp4 again from its configuration file. */
  startServer(): Promise<void>;
  close(): Promise<void>;
}

export const keaBinaries = { dhcp4: '/usr/sbin/kea-dhcp4', agent: '/usr/sbin/kea-ctrl-agent' };

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface KeaOptions {
  /** The site's own subnet (a room's network overlapping it makes Kea refuse). */
  siteSubnet?: string;
  /** The site subnet's id (1 by default). */
  siteSubnetId?: number;
}

export async function startKea(options: KeaOptions = {}): Promise<Kea> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-kea-'));
  const [serverPort, clientPort, agentPort] = [await freePort(), await freePort(), await freePort()];
  const socket = path.join(dir, 'kea4.sock');
  const siteSubnet = options.siteSubnet ?? '127.200.0.0/24';
  const configFile = path.join(dir, 'kea-dhcp4.conf');
  const logFile = path.join(dir, 'kea-dhcp4.log');
  const siteBase = siteSubnet.split('/')[0]!.split('.').slice(0, 3).join('.');
  writeFileSync(
    configFile,
    JSON.stringify(
      {
        Dhcp4: {
          'interfaces-config': { interfaces: ['lo/127.0.0.1'], 'dhcp-socket-type': 'udp' },
          'control-socket': { 'socket-type': 'unix', 'socket-name': socket },
          'lease-database': { type: 'memfile', name: path.join(dir, 'leases4.csv'), 'lfc-interval': 0 },
          'hooks-libraries': [{ library: '/usr/lib/x86_64-linux-gnu/kea/hooks/libdhcp_lease_cmds.so' }],
          'option-data': [{ name: 'domain-name', data: 'site.example' }],
          'client-classes': [{ name: 'site-printers', test: "substring(option[60].hex, 0, 7) == 'printer'", 'next-server': '127.200.0.2' }],
          'valid-lifetime': 600,
          subnet4: [
            {
              id: options.siteSubnetId ?? 1,
              subnet: siteSubnet,
              pools: [{ pool: `${siteBase}.10 - ${siteBase}.20` }],
              'option-data': [{ name: 'routers', data: `${siteBase}.1` }],
            },
          ],
          loggers: [{ name: 'kea-dhcp4', output_options: [{ output: logFile }], severity: 'INFO' }],
        },
      },
      null,
      2,
    ),
  );
  const agentConfig = path.join(dir, 'kea-ctrl-agent.conf');
  writeFileSync(
    agentConfig,
    JSON.stringify({
      'Control-agent': {
        'http-host': '127.0.0.1',
        'http-port': agentPort,
        'control-sockets': { dhcp4: { 'socket-type': 'unix', 'socket-name': socket } },
        loggers: [{ name: 'kea-ctrl-agent', output_options: [{ output: path.join(dir, 'kea-ctrl-agent.log') }], severity: 'WARN' }],
      },
    }),
  );
  const env = { ...process.env, KEA_PIDFILE_DIR: dir, KEA_LOCKFILE_DIR: dir, KEA_LOGGER_DESTINATION: logFile };
  const url = `http://127.0.0.1:${agentPort}/`;
  let server: ChildProcess | undefined;
  let agent: ChildProcess | undefined;
  const launch = (binary: string, args: string[]) => {
    let output = '';
    const child = spawn(binary, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // Not started (ENOENT): the wait for it fails naming it, instead of an uncaught error ending the run.
    child.once('error', (error) => (output += `${error.message} (apt-get install kea-dhcp4-server kea-ctrl-agent)`));
    running.add(child);
    child.once('exit', () => running.delete(child));
    return Object.assign(child, { output: () => output });
  };
  const stopChild = async (child: ChildProcess | undefined) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await gone;
    clearTimeout(timer);
  };
  const command: Kea['command'] = async (name, args) => {
    const answer = JSON.parse(await post(url, { command: name, service: ['dhcp4'], ...(args ? { arguments: args } : {}) }));
    return answer[0];
  };
  /** Until config-get through the agent answers 0 (both up): a deadline, not a timing assertion. */
  const answering = async (what: ChildProcess & { output(): string }) => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      if (what.exitCode !== null) throw new Error(`Kea exited (${what.exitCode}): ${what.output()}`);
      try {
        if ((await command('config-get')).result === 0) return;
      } catch {}
      if (Date.now() > deadline) throw new Error(`Kea did not answer in 15 s: ${what.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const startServer = async () => {
    const child = launch(keaBinaries.dhcp4, ['-c', configFile, '-p', String(serverPort), '-P', String(clientPort)]);
    server = child;
    await answering(child);
  };
  let closed = false;
  const kea: Kea = {
    url,
    serverPort,
    clientPort,
    siteSubnet,
    configFile,
    command,
    received: (name) => {
      let log = '';
      try {
        log = readFileSync(logFile, 'utf8');
      } catch {}
      return log.split('\n').filter((line) => line.includes(`COMMAND_RECEIVED Received command '${name}'`)).length;
    },
    stopServer: () => stopChild(server),
    startServer,
    close: async () => {
      if (closed) return;
      closed = true;
      await stopChild(server);
      await stopChild(agent);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    agent = launch(keaBinaries.agent, ['-c', agentConfig]);
    await startServer();
    return kea;
  } catch (error) {
    await kea.close();
    throw error;
  }
}

function post(url: string, body: unknown): Promise<string> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
    req.on('error', reject);
    req.end(text);
  });
}
