// System needs: nginx
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { freePort } from './child-server';
import { eventually } from './fake-agent';

export interface Nginx {
  port: number;
  /** The master's pid and its workers': their CPU added up is nginx's. */
  pids(): number[];
  stop(): Promise<void>;
}

const policy = '/usr/sbin/policy-rc.d';

/**
 * nginx on this machine, installed from Debian (nginx-light) with apt-get when missing, as root
 * may. A policy-rc.d keeps the package from starting the system's nginx on port 80 meanwhile
 * (removed after unless it was there before): the bench runs its own, on a loopback port.
 */
export function ensureNginx(): void {
  if (spawnSync('nginx', ['-v']).status === 0) return;
  if (process.getuid?.() !== 0) throw new Error('nginx is missing: apt-get install -y nginx-light');
  const ownPolicy = !existsSync(policy);
  if (ownPolicy) writeFileSync(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    let install = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'nginx-light'], { stdio: 'inherit', env });
    if (install.status !== 0) {
      spawnSync('apt-get', ['update'], { stdio: 'inherit', env });
      install = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'nginx-light'], { stdio: 'inherit', env });
    }
    if (install.status !== 0) throw new Error('apt-get install nginx-light failed');
  } finally {
    if (ownPolicy) rmSync(policy, { force: true });
  }
}

/**
 * nginx serving each folder of `locations` at its URL prefix (`{'/images/files/': dir}`) on a
 * loopback port, sendfile on and its default worker count; `probe` is a path it must answer
 * before this resolves (the bench's anchor).
 */
export async function startNginx(dir: string, locations: Record<string, string>, probe: string): Promise<Nginx> {
  const port = await freePort();
  const served = Object.entries(locations).map(([at, root]) => `location ${at} { alias ${root}/; }`);
  const server = ['access_log off;', 'sendfile on;', 'tcp_nopush on;', `server { listen 127.0.0.1:${port}; ${served.join(' ')} }`];
  return runNginx(dir, port, server, async () => (await fetchStatus(port, probe)) === 200);
}

/** The shipped configuration of the nginx in front of ogserve (transfers.handoff: nginx). */
export const shippedFront = path.resolve(__dirname, '..', '..', '..', 'packaging', 'nginx', 'ogserve.conf');

/**
 * nginx in front of ogserve as packaging/nginx/ogserve.conf sets it up, on a loopback port: the
 * shipped file itself, with the test's ports for its `listen`, its upstream (ogserve's REST
 * port) and its log port (transfers.handoff_log_port).
 */
export async function startFront(dir: string, ports: { upstream: number; log: number }): Promise<Nginx> {
  const port = await freePort();
  const shipped = readFileSync(shippedFront, 'utf8');
  const swaps: [string, string][] = [
    ['listen 8888;', `listen 127.0.0.1:${port};`],
    ['server 127.0.0.1:8887;', `server 127.0.0.1:${ports.upstream};`],
    ['server=127.0.0.1:8890,', `server=127.0.0.1:${ports.log},`],
  ];
  let conf = shipped;
  for (const [from, to] of swaps) {
    if (!conf.includes(from)) throw new Error(`${shippedFront} no longer holds '${from}'`);
    conf = conf.replace(from, to);
  }
  return runNginx(dir, port, ['access_log off;', conf], async () => (await fetchStatus(port, '/nginx-probe')) !== 0);
}

/** nginx with its own config, pid and temp folders under `dir`, the http block holding `http`, until `up` holds. */
async function runNginx(dir: string, port: number, http: string[], up: () => Promise<boolean>): Promise<Nginx> {
  ensureNginx();
  const prefix = path.join(dir, `nginx-${port}`);
  for (const sub of ['', 'tmp', 'logs']) mkdirSync(path.join(prefix, sub), { recursive: true });
  const conf = path.join(prefix, 'nginx.conf');
  writeFileSync(
    conf,
    [
      ...(process.getuid?.() === 0 ? ['user root;'] : []),
      'worker_processes auto;',
      'daemon off;',
      `pid ${prefix}/nginx.pid;`,
      `error_log ${prefix}/logs/error.log warn;`,
      'events { worker_connections 8192; }',
      'http {',
      '  default_type application/octet-stream;',
      '  keepalive_requests 10000;',
      `  client_body_temp_path ${prefix}/tmp/body;`,
      `  proxy_temp_path ${prefix}/tmp/proxy;`,
      `  fastcgi_temp_path ${prefix}/tmp/fastcgi;`,
      `  uwsgi_temp_path ${prefix}/tmp/uwsgi;`,
      `  scgi_temp_path ${prefix}/tmp/scgi;`,
      ...http,
      '}',
      '',
    ].join('\n'),
  );
  const master = spawn('nginx', ['-c', conf, '-p', prefix], { stdio: ['ignore', 'ignore', 'pipe'] });
  let said = '';
  master.stderr.on('data', (chunk: Buffer) => {
    said += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => master.once('exit', () => resolve()));
  await eventually(up, `nginx answering on ${port}`, 10_000).catch((error: Error) => {
    master.kill('SIGKILL');
    throw new Error(`${error.message}: ${said.trim() || readFileSync(path.join(prefix, 'logs', 'error.log'), 'utf8').trim()}`);
  });
  const pids = () => {
    const workers = spawnSync('pgrep', ['-P', String(master.pid)], { encoding: 'utf8' })
      .stdout.trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
    return [master.pid!, ...workers];
  };
  return {
    port,
    pids,
    async stop() {
      master.kill('SIGQUIT');
      await exited;
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}

/** The status of the first byte of `urlPath` (a 206 counts as 200). */
function fetchStatus(port: number, urlPath: string): Promise<number> {
  return new Promise((resolve) => {
    http
      .get({ host: '127.0.0.1', port, path: urlPath, headers: { Range: 'bytes=0-0' }, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode === 206 ? 200 : (res.statusCode ?? 0));
      })
      .on('error', () => resolve(0));
  });
}
