import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, copyFileSync, mkdirSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { FileHasher, ImageStore } from '../plugins/images';
import { type ChildServer, freePort, prepareSite, spawnServer } from '../test/support/child-server';
import { makeTestDir, removeTestStore } from '../test/support/server';
import { type Nginx, startFront, startNginx } from '../test/support/nginx';
import { cpuMs } from './support/proc';
import { fmt, type BenchRow } from './support/report';

/** PCs fetching the image at once, the image's MiB, rounds each (IMAGE_BENCH_PCS, IMAGE_BENCH_MIB, IMAGE_BENCH_ROUNDS). */
const PCS = Number(process.env.IMAGE_BENCH_PCS ?? 50);
const MIB = Number(process.env.IMAGE_BENCH_MIB ?? 256);
const ROUNDS = Number(process.env.IMAGE_BENCH_ROUNDS ?? 3);
/** The file hashed against sha256sum (IMAGE_BENCH_HASH_MIB). */
const HASH_MIB = Number(process.env.IMAGE_BENCH_HASH_MIB ?? 1024);

interface Round {
  mbps: number;
  cpuMsPerGB: number;
  /** The first pid's share (ogserve's, where nginx sends the bytes for it). */
  firstCpuMsPerGB: number;
  errors: number;
}

/**
 * Issue 54's bench: an image served over HTTP to 50 PCs at once by ogserve (its own process,
 * GET /images/files/<name>.img?mac=, each PC's bytes counted), by nginx (sendfile, its
 * default worker count) serving the same file, and by ogserve with the nginx of
 * packaging/nginx/ogserve.conf in front sending the bytes (transfers.handoff; the CPU is
 * ogserve's and nginx's added up), in turns in one run: MB/s and the servers' CPU per GB moved
 * (from /proc, nginx's master and workers added up); the readers are a process of their own. Then hashing a 1 GiB file (sha256, the worker thread ogserve uses) against
 * `sha256sum`, both from the page cache, best of three each.
 */
export default async function imageFilesBench(): Promise<BenchRow[]> {
  const dir = makeTestDir();
  try {
    const images = path.join(dir, 'images');
    mkdirSync(images, { recursive: true });
    const file = path.join(images, 'lab.img');
    writeBig(file, MIB);
    await prepareSite(dir, async (s) => {
      const repository = (await s.get('/repositories')).body.repositories[0].id as number;
      const store = s.app.container.resolve(ImageStore);
      const id = await store.saveCapture({
        name: 'lab',
        repositoryId: repository,
        clientId: 0,
        disk: 1,
        partition: 1,
        code: 131,
        size: BigInt(MIB * 2 ** 20),
        datasize: 1n,
        checksum: '',
        permissions: '644',
        lastUpdate: 0n,
        clonator: 'partclone',
        compressor: 'lzop',
        filesystem: 'EXT4',
      });
      const checked = await s.post('/image/check', { id });
      if (checked.body.state !== 'available') throw new Error(`the bench image is ${checked.text}`);
    });
    // The same site beside it with nginx in front sending the bytes (transfers.handoff): its own state, the same images.
    const handoffDir = path.join(dir, 'handoff');
    mkdirSync(handoffDir);
    for (const entry of readdirSync(dir, { withFileTypes: true }))
      if (entry.isFile()) copyFileSync(path.join(dir, entry.name), path.join(handoffDir, entry.name));
    const ogserve = await spawnServer({ dir, config: { log: { level: 'warn' }, repository: { max_transfers: 4 * PCS } } });
    const nginx = await startNginx(dir, { '/images/files/': images }, '/images/files/lab.img');
    let handing: ChildServer | undefined;
    let front: Nginx | undefined;
    const ours: Round[] = [];
    const theirs: Round[] = [];
    const fronted: Round[] = [];
    try {
      const log = await freePort();
      handing = await spawnServer({
        dir: handoffDir,
        config: {
          log: { level: 'warn' },
          database: { type: 'sqlite', path: path.join(handoffDir, 'ogserve.sqlite') },
          repository: { directory: images },
          rest: { trusted_proxies: ['127.0.0.1'] },
          transfers: { handoff: 'nginx', handoff_log_port: log },
        },
      });
      front = await startFront(handoffDir, { upstream: handing.port, log });
      for (let round = 0; round < ROUNDS; round++) {
        ours.push(await serve(ogserve.port, '/images/files/lab.img?mac={n}', [ogserve.pid]));
        theirs.push(await serve(nginx.port, '/images/files/lab.img', nginx.pids()));
        fronted.push(await serve(front.port, '/images/files/lab.img?mac={n}', [handing.pid, ...front.pids()]));
      }
    } finally {
      await ogserve.stop();
      await nginx.stop();
      await front?.stop();
      await handing?.stop();
    }
    const hashing = await hashBench(dir);
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const o = { mbps: median(ours.map((r) => r.mbps)), cpu: median(ours.map((r) => r.cpuMsPerGB)) };
    const n = { mbps: median(theirs.map((r) => r.mbps)), cpu: median(theirs.map((r) => r.cpuMsPerGB)) };
    const h = {
      mbps: median(fronted.map((r) => r.mbps)),
      cpu: median(fronted.map((r) => r.cpuMsPerGB)),
      ogserve: median(fronted.map((r) => r.firstCpuMsPerGB)),
    };
    return [
      {
        workload: `image over HTTP, ${PCS} PCs x ${MIB} MiB at once (median of ${ROUNDS})`,
        figures: {
          ogserveMBps: fmt(o.mbps, 0),
          nginxMBps: fmt(n.mbps, 0),
          throughputShare: `${fmt((o.mbps / n.mbps) * 100, 0)}%`,
          ogserveCpuMsPerGB: fmt(o.cpu, 0),
          nginxCpuMsPerGB: fmt(n.cpu, 0),
          cpuRatio: fmt(o.cpu / n.cpu, 2),
          handoffMBps: fmt(h.mbps, 0),
          handoffThroughputShare: `${fmt((h.mbps / n.mbps) * 100, 0)}%`,
          handoffCpuMsPerGB: fmt(h.cpu, 0),
          handoffCpuRatio: fmt(h.cpu / n.cpu, 2),
          handoffOgserveCpuMsPerGB: fmt(h.ogserve, 0),
          errors: [...ours, ...theirs, ...fronted].reduce((sum, r) => sum + r.errors, 0),
          goal: '>=80% of nginx, <=1.5x its CPU per GB',
        },
      },
      {
        workload: `sha256 of ${HASH_MIB} MiB, page cache (best of 3)`,
        figures: { ogserveS: fmt(hashing.ours, 2), sha256sumS: fmt(hashing.theirs, 2), ratio: fmt(hashing.ours / hashing.theirs, 2) },
      },
    ];
  } finally {
    await removeTestStore(dir);
  }
}

/** A file of `mib` MiB of random-looking bytes (a 16 MiB random block repeated with its index). */
function writeBig(file: string, mib: number): void {
  const block = Buffer.alloc(16 * 2 ** 20);
  for (let i = 0; i < block.length; i += 32) createHash('sha256').update(String(i)).digest().copy(block, i);
  const fd = openSync(file, 'w');
  try {
    for (let written = 0; written < mib; written += 16) {
      block.writeUInt32LE(written, 0);
      writeSync(fd, block, 0, Math.min(16, mib - written) * 2 ** 20);
    }
  } finally {
    closeSync(fd);
  }
}

/** One round: the PCs' downloads from a process of their own, and the server processes' CPU meanwhile. */
async function serve(port: number, urlPath: string, pids: number[]): Promise<Round> {
  const cpuBefore = pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
  const firstBefore = cpuMs(pids[0]!);
  const result = await new Promise<{ seconds: number; bytes: number; errors: number }>((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(__dirname, 'support', 'image-downloads.js'), String(port), urlPath, String(PCS)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`downloads exited ${code}`))));
  });
  const cpu = pids.reduce((sum, pid) => sum + cpuMs(pid), 0) - cpuBefore;
  const first = cpuMs(pids[0]!) - firstBefore;
  const gb = result.bytes / 1e9;
  return {
    mbps: result.bytes / 1e6 / result.seconds,
    cpuMsPerGB: cpu / gb,
    firstCpuMsPerGB: first / gb,
    errors: result.errors + (result.bytes < PCS * MIB * 2 ** 20 ? 1 : 0),
  };
}

/** Seconds to hash a file of HASH_MIB MiB: the images plugin's FileHasher (a worker thread) against sha256sum, best of three each. */
async function hashBench(dir: string): Promise<{ ours: number; theirs: number }> {
  const file = path.join(dir, 'hash.bin');
  writeBig(file, HASH_MIB);
  const hasher = new FileHasher();
  // Into the page cache first: both read it from there.
  spawnSync('sha256sum', [file]);
  let ours = Number.POSITIVE_INFINITY;
  let theirs = Number.POSITIVE_INFINITY;
  let expected = '';
  for (let i = 0; i < 3; i++) {
    let started = performance.now();
    const run = spawnSync('sha256sum', [file], { encoding: 'utf8' });
    theirs = Math.min(theirs, (performance.now() - started) / 1000);
    expected = run.stdout.split(' ')[0]!;
    started = performance.now();
    const hashed = await hasher.hash(file);
    ours = Math.min(ours, (performance.now() - started) / 1000);
    if (hashed.sha256 !== expected) throw new Error(`sha256 differs from sha256sum's: ${hashed.sha256} ${expected}`);
  }
  rmSync(file, { force: true });
  return { ours, theirs };
}
