import { mkdirSync, writeFileSync, createReadStream, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { makeTestDir, removeTestStore, startServer } from '../test/support/server';
import { addBenchClients, benchMac } from './support/fleet';
import { load } from './support/load';
import { fmt, type BenchRow } from './support/report';

const CLIENTS = 2000;
const TRANSFERS = 50;
const KERNEL_BYTES = 10 * 2 ** 20;
const ipFor = (i: number): string => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

/**
 * The boot chain over HTTP (issue 37): per-PC iPXE scripts for 2,000 PCs on new connections,
 * as iPXE opens them, and 50 PCs fetching a 10 MiB kernel at once, against a bare Node server
 * streaming the same file (the ceiling).
 */
export default async function bootBench(): Promise<BenchRow[]> {
  const dir = makeTestDir();
  try {
    const liveDir = path.join(dir, 'live');
    mkdirSync(path.join(liveDir, 'ogLive'), { recursive: true });
    const kernel = path.join(liveDir, 'ogLive', 'ogvmlinuz');
    writeFileSync(kernel, Buffer.alloc(KERNEL_BYTES, 7));
    const s = await startServer({
      dir,
      config: { log: { level: 'warn' }, live: { directory: liveDir }, boot: { scripts_per_minute: 0, max_transfers: 200 } },
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
      return [
        {
          workload: `boot script, ${CLIENTS} PCs, new connection each`,
          figures: { rps: fmt(scripts.rps), p50ms: fmt(scripts.p50ms), p99ms: fmt(scripts.p99ms), errors: scripts.errors },
        },
        {
          workload: `boot files, ${TRANSFERS} x 10 MiB kernel at once`,
          figures: { seconds: fmt(ours), bareNodeSeconds: fmt(bare), ratio: fmt(ours / bare) },
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
