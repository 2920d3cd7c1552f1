import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync, createReadStream, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { makeTestDir, removeTestStore, startServer } from '../test/support/server';
import { addBenchClients, benchMac } from './support/fleet';
import { load, percentile } from './support/load';
import { fmt, type BenchRow } from './support/report';

const CLIENTS = 2000;
const TRANSFERS = 50;
const KERNEL_BYTES = 10 * 2 ** 20;
const INITRD_BYTES = 60 * 2 ** 20;
/** PCs booting at once in the storm (issue 37's bench). */
const STORM = Number(process.env.BOOT_BENCH_STORM ?? 1000);
const ipFor = (i: number): string => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

/**
 * The boot chain over HTTP (issue 37): per-PC iPXE scripts for 2,000 PCs on new connections,
 * as iPXE opens them; 50 PCs fetching a 10 MiB kernel at once; and a storm of 1,000 PCs each
 * fetching its script, a 10 MiB kernel and a 60 MiB initrd at once (BOOT_BENCH_STORM), its
 * clients in a process of their own, with the server's peak RSS. Each against a bare Node
 * server streaming the same files (the ceiling).
 */
export default async function bootBench(): Promise<BenchRow[]> {
  const dir = makeTestDir();
  try {
    const liveDir = path.join(dir, 'live');
    mkdirSync(path.join(liveDir, 'ogLive'), { recursive: true });
    const kernel = path.join(liveDir, 'ogLive', 'ogvmlinuz');
    writeFileSync(kernel, Buffer.alloc(KERNEL_BYTES, 7));
    writeFileSync(path.join(liveDir, 'ogLive', 'oginitrd.img'), Buffer.alloc(INITRD_BYTES, 8));
    const s = await startServer({
      dir,
      // Every PC of the storm transfers at once: a site booting that many at once raises max_transfers so.
      config: {
        log: { level: 'warn' },
        live: { directory: liveDir },
        boot: { scripts_per_minute: 0, max_transfers: Math.max(200, 2 * STORM) },
      },
    });
    try {
      await addBenchClients(
        s,
        Array.from({ length: CLIENTS }, (_, i) => ipFor(i + 1)),
      );
      const scripts = await load({
        port: s.port,
        method: 'GET',
        path: (i) => `/boot/ipxe?mac=${benchMac(i % CLIENTS)}`,
        connections: 32,
        keepAlive: false,
        requests: 20_000,
        seconds: 15,
      });
      const ours = await transfers(s.port, '/boot/files/ogLive/ogvmlinuz');
      const bare = await bareTransfers(kernel);
      const stormRss = new PeakRss();
      const storm = await bootStorm(s.port, '/boot/ipxe?mac=MAC', ['/boot/files/ogLive/ogvmlinuz', '/boot/files/ogLive/oginitrd.img']);
      const stormPeak = stormRss.stop();
      const bareStorm = await bareBootStorm(liveDir);
      return [
        {
          workload: `boot script, ${CLIENTS} PCs, new connection each`,
          figures: { rps: fmt(scripts.rps), p50ms: fmt(scripts.p50ms), p99ms: fmt(scripts.p99ms), errors: scripts.errors },
        },
        {
          workload: `boot files, ${TRANSFERS} x 10 MiB kernel at once`,
          figures: { seconds: fmt(ours), bareNodeSeconds: fmt(bare), ratio: fmt(ours / bare) },
        },
        {
          workload: `boot storm, ${STORM} PCs: script, 10 MiB kernel, 60 MiB initrd`,
          figures: {
            seconds: fmt(storm.seconds),
            bareNodeSeconds: fmt(bareStorm.seconds),
            ratio: fmt(storm.seconds / bareStorm.seconds),
            scriptP50ms: fmt(percentile(storm.scriptMs, 0.5)),
            scriptP99ms: fmt(percentile(storm.scriptMs, 0.99)),
            peakRssMiB: fmt(stormPeak / 2 ** 20, 0),
            retries: storm.retries,
            errors: storm.errors,
          },
        },
      ];
    } finally {
      await s.close();
    }
  } finally {
    await removeTestStore(dir);
  }
}

/** Seconds until `TRANSFERS` GETs of `urlPath` started together have all been read whole. */
async function transfers(port: number, urlPath: string): Promise<number> {
  const started = performance.now();
  await Promise.all(
    Array.from(
      { length: TRANSFERS },
      () =>
        new Promise<void>((resolve, reject) => {
          http
            .get({ host: '127.0.0.1', port, path: urlPath, agent: false }, (res) => {
              let bytes = 0;
              res.on('data', (chunk: Buffer) => {
                bytes += chunk.length;
              });
              res.on('end', () => (bytes === KERNEL_BYTES ? resolve() : reject(new Error(`${res.statusCode}: ${bytes} bytes`))));
            })
            .on('error', reject);
        }),
    ),
  );
  return (performance.now() - started) / 1000;
}

/** The same transfers from a bare Node server that streams the file and nothing else. */
async function bareTransfers(file: string): Promise<number> {
  const size = statSync(file).size;
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Length': size });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await transfers((server.address() as AddressInfo).port, '/');
  } finally {
    server.close();
  }
}

interface StormResult {
  seconds: number;
  scriptMs: number[];
  retries: number;
  errors: number;
}

/** The storm from a child process (bench/support/boot-storm), so the clients' CPU is not the server's. */
function bootStorm(port: number, scriptPath: string, files: string[]): Promise<StormResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(__dirname, 'support', 'boot-storm.js')], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`boot storm exited ${code}`));
      const result = JSON.parse(out) as StormResult;
      result.scriptMs.sort((a, b) => a - b);
      resolve(result);
    });
    const macs = Array.from({ length: STORM }, (_, i) => benchMac(i % CLIENTS));
    child.stdin.end(JSON.stringify({ port, macs, scriptPath, files }));
  });
}

/** The same storm against a bare Node server: a fixed script, the files streamed. */
async function bareBootStorm(liveDir: string): Promise<StormResult> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://bare');
    if (url.pathname === '/script') {
      res.end('#!ipxe\nkernel /ogLive/ogvmlinuz\ninitrd /ogLive/oginitrd.img\nboot\n');
      return;
    }
    const file = path.join(liveDir, url.pathname);
    res.writeHead(200, { 'Content-Length': statSync(file).size });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await bootStorm((server.address() as AddressInfo).port, '/script?mac=MAC', ['/ogLive/ogvmlinuz', '/ogLive/oginitrd.img']);
  } finally {
    server.close();
  }
}

/** The highest RSS of this process (the server's) sampled every 100 ms until `stop`. */
class PeakRss {
  private peak = process.memoryUsage().rss;
  private readonly timer = setInterval(() => {
    this.peak = Math.max(this.peak, process.memoryUsage().rss);
  }, 100);

  stop(): number {
    clearInterval(this.timer);
    return Math.max(this.peak, process.memoryUsage().rss);
  }
}
