import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type ChildServer, freePort, prepareSite, spawnServer } from '../../test/support/child-server';
import { cpuOf, generate, onBareNode, perReq } from './measure';
import { type Nginx, startFront, startNginx } from '../../test/support/nginx';
import { cpuMs } from './proc';
import { type BenchRow, fmt } from './report';

/** The boot file the PCs fetch at once, in MiB, and how many PCs (issue 52's row: a 30 MB file, 50 PCs). */
const FILE_MIB = 30;
const PCS = 50;
const ROUNDS = 3;
const RANGE_BYTES = 2 ** 20;

/**
 * GET /boot/ipxe?mac= for every client in turn from 50 connections, kept alive and one per
 * request: ogserve's CPU per script, beside a bare Node process answering the same script's text.
 */
export async function bootScriptRows(server: ChildServer, macs: string[], seconds: number): Promise<BenchRow[]> {
  const paths = macs.map((mac) => `/boot/ipxe?mac=${mac}`);
  const script = (await server.get(paths[0]!)).text;
  if (!script.startsWith('#!ipxe')) throw new Error(`GET /boot/ipxe: ${script.slice(0, 200)}`);
  const rows: BenchRow[] = [];
  for (const keepAlive of [true, false]) {
    const options = { method: 'GET', path: paths[0]!, paths, connections: 50, seconds, keepAlive };
    const ours = await cpuOf(server.pid, () => generate({ ...options, port: server.port }));
    const bare = await onBareNode(script, options);
    rows.push({
      workload: `GET /boot/ipxe?mac= (${macs.length} PCs), ${keepAlive ? 'keep-alive' : 'one connection per request'}`,
      figures: {
        'req/s': fmt(ours.result.rps, 0),
        p99_ms: fmt(ours.result.p99ms, 2),
        cpu_ms_per_script: fmt(perReq(ours), 3),
        errors: ours.result.errors,
        bare_node_rps: fmt(bare.result.rps, 0),
        bare_node_cpu_ms: fmt(perReq(bare), 3),
        goal: '<=0.3 ms CPU',
      },
    });
  }
  return rows;
}

interface Round {
  mbps: number;
  cpuMsPerGB: number;
  errors: number;
}

/**
 * A 30 MiB file under live.directory fetched by 50 PCs at once from GET /boot/files (each
 * `?mac=`, so each transfer is counted to its PC), whole and in 1 MiB Range requests, three
 * ways in turns in the same run: ogserve sending the bytes; nginx alone (Debian's, sendfile,
 * its default workers) serving the folder; and ogserve deciding with the nginx of
 * packaging/nginx/ogserve.conf in front sending them (transfers.handoff), whose CPU is
 * ogserve's and nginx's added up. MB/s and CPU per GB moved (median of 3 rounds each).
 */
export async function bootFileRows(server: ChildServer, dir: string, liveDir: string): Promise<BenchRow[]> {
  writeFileSync(path.join(liveDir, 'ogLive', 'root.img'), Buffer.alloc(FILE_MIB * 2 ** 20, 9));
  const file = '/boot/files/ogLive/root.img';
  const nginx = await startNginx(dir, { '/boot/files/': liveDir }, file);
  let handed: Awaited<ReturnType<typeof handingOff>> | undefined;
  const rows: BenchRow[] = [];
  try {
    handed = await handingOff(dir, liveDir);
    for (const range of [0, RANGE_BYTES]) {
      const ours: Round[] = [];
      const theirs: Round[] = [];
      const fronted: Round[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        ours.push(await downloads(server.port, `${file}?mac={n}`, [server.pid], range));
        theirs.push(await downloads(nginx.port, file, nginx.pids(), range));
        fronted.push(await downloads(handed.front.port, `${file}?mac={n}`, [handed.server.pid, ...handed.front.pids()], range));
      }
      const o = medians(ours);
      const n = medians(theirs);
      const h = medians(fronted);
      rows.push({
        workload: `GET /boot/files, ${FILE_MIB} MiB to ${PCS} PCs at once${range ? ', 1 MiB Range requests' : ''}`,
        figures: {
          MBps: fmt(o.mbps, 0),
          nginx_MBps: fmt(n.mbps, 0),
          share_of_nginx: fmt(o.mbps / n.mbps, 2),
          cpu_ms_per_gb: fmt(o.cpu, 0),
          nginx_cpu_ms_per_gb: fmt(n.cpu, 0),
          cpu_to_nginx: fmt(o.cpu / n.cpu, 1),
          handoff_MBps: fmt(h.mbps, 0),
          handoff_share_of_nginx: fmt(h.mbps / n.mbps, 2),
          handoff_cpu_ms_per_gb: fmt(h.cpu, 0),
          handoff_cpu_to_nginx: fmt(h.cpu / n.cpu, 1),
          errors: [...ours, ...theirs, ...fronted].reduce((sum, r) => sum + r.errors, 0),
          goal: '>=0.80 of nginx, <=1.5x its CPU per GB',
        },
      });
    }
  } finally {
    await nginx.stop();
    await handed?.stop();
  }
  return rows;
}

/** A second ogserve on the same boot folder, with `transfers.handoff: nginx` and the shipped nginx in front of it. */
async function handingOff(dir: string, liveDir: string): Promise<{ server: ChildServer; front: Nginx; stop(): Promise<void> }> {
  const site = path.join(dir, 'handoff');
  mkdirSync(site);
  await prepareSite(site, async () => {});
  const log = await freePort();
  const server = await spawnServer({
    dir: site,
    config: {
      log: { level: 'warn' },
      live: { directory: liveDir },
      rest: { trusted_proxies: ['127.0.0.1'] },
      transfers: { handoff: 'nginx', handoff_log_port: log },
    },
  });
  const front = await startFront(site, { upstream: server.port, log }).catch(async (error: Error) => {
    await server.stop();
    throw error;
  });
  return {
    server,
    front,
    async stop() {
      await front.stop();
      await server.stop();
    },
  };
}

function medians(rounds: Round[]): { mbps: number; cpu: number } {
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  return { mbps: median(rounds.map((r) => r.mbps)), cpu: median(rounds.map((r) => r.cpuMsPerGB)) };
}

/** One round: the PCs' downloads from a process of their own (image-downloads), and the server processes' CPU meanwhile. */
async function downloads(port: number, urlPath: string, pids: number[], range: number): Promise<Round> {
  const cpuBefore = pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
  const result = await new Promise<{ seconds: number; bytes: number; errors: number }>((resolve, reject) => {
    const args = [path.join(__dirname, 'image-downloads.js'), String(port), urlPath, String(PCS), String(range)];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`downloads exited ${code}`))));
  });
  const cpu = pids.reduce((sum, pid) => sum + cpuMs(pid), 0) - cpuBefore;
  return {
    mbps: result.bytes / 1e6 / result.seconds,
    cpuMsPerGB: cpu / (result.bytes / 1e9),
    errors: result.errors + (result.bytes < PCS * FILE_MIB * 2 ** 20 ? 1 : 0),
  };
}
