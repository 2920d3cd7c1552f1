import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { freePort } from '../../test/support/child-server';
import { eventually } from '../../test/support/fake-agent';

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
 * loopback port, with its own config, pid and temp folders under `dir`, sendfile on and its
 * default worker count; `probe` is a path it must answer before this resolves.
 */
export async function startNginx(dir: string, locations: Record<string, string>, probe: string): Promise<Nginx> {
  ensureNginx();
  const prefix = path.join(dir, 'nginx');
  for (const sub of ['', 'tmp', 'logs']) mkdirSync(path.join(prefix, sub), { recursive: true });
  const port = await freePort();
  const conf = path.join(prefix, 'nginx.conf');
  const served = Object.entries(locations).map(([at, root]) => `location ${at} { alias ${root}/; }`);
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
      '  access_log off;',
      '  sendfile on;',
      '  tcp_nopush on;',
      '  keepalive_requests 10000;',
      `  client_body_temp_path ${prefix}/tmp/body;`,
      `  proxy_temp_path ${prefix}/tmp/proxy;`,
      `  fastcgi_temp_path ${prefix}/tmp/fastcgi;`,
      `  uwsgi_temp_path ${prefix}/tmp/uwsgi;`,
      `  scgi_temp_path ${prefix}/tmp/scgi;`,
      `  server { listen 127.0.0.1:${port}; ${served.join(' ')} }`,
      '}',
      '',
    ].join('\n'),
  );
  const master = spawn('nginx', ['-c', conf, '-p', prefix], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => master.once('exit', () => resolve()));
  await eventually(() => readFileSync(path.join(prefix, 'nginx.pid'), 'utf8').trim() !== '', 'nginx started', 10_000).catch(
    () => undefined,
  );
  await eventually(async () => (await fetchStatus(port, probe)) === 200, 'nginx answering', 10_000);
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
