import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type ChildServer, freePort, prepareSite, spawnServer } from '../test/support/child-server';
import { TOKEN, makeTestDir, removeTestStore } from '../test/support/server';
import { untilRefreshed } from './support/agent-waits';
import { addLabInventory, addressOf, benchMac } from './support/fleet';
import { type Nginx, startFront, startNginx } from '../test/support/nginx';
import { pacedProbe } from './support/paced-probe';
import { cpuMs, rssMiBOf, settledMemory } from './support/proc';
import { type BenchRow, fmt } from './support/report';
import type { Storm, StormReport } from './support/storm-pcs';

/** PCs powering on at once (STORM_PCS), the kernel's and the initrd's MiB (STORM_KERNEL_MIB, STORM_INITRD_MIB). */
const PCS = Number(process.env.STORM_PCS ?? 2000);
const KERNEL_MIB = Number(process.env.STORM_KERNEL_MIB ?? 10);
const INITRD_MIB = Number(process.env.STORM_INITRD_MIB ?? 60);
/** Seconds of REST probing with nothing else going on: the idle p99 the storm's is set against. */
const IDLE_SECONDS = 10;
/** The console's live view open in this many browsers. */
const SUBSCRIBERS = 5;
/** STORM_CPU_PROF=<dir>: the service's CPU profile of each storm is written there (what holds its REST p99). */
const profileDir = process.env.STORM_CPU_PROF;
type Sender = 'ogserve' | 'nginx';
/** Who sends the boot files' bytes, one storm each (STORM_SENDERS): ogserve, and the nginx in front of it (transfers.handoff). */
const SENDERS = (process.env.STORM_SENDERS ?? 'ogserve,nginx').split(',') as Sender[];
/** PCs per child process: each holds its PCs' connections and agents. */
const PCS_PER_CHILD = 1000;
/** One read of each route every this many ms, as a few consoles open during the storm. */
const PROBE_EVERY_MS = 50;

/**
 * Issue 52's morning storm, `npm run bench storm`: N PCs (STORM_PCS, 2,000) of a lab of 5
 * centers and 40 rooms power on at once, each from its own address, and do what a lab's PC
 * does at 8:00: its iPXE script (GET /boot/ipxe?mac=), the kernel and the initrd the script
 * names from /boot/files, then its agent connects and answers the refresh ogserve sends with a
 * live configuration (so the inventory, power, energy and history plugins write), while the
 * console's live stream is open in 5 subscribers and GET /clients and GET /client/info are read
 * every 50 ms. The service runs as shipped (its own process, SQLite, the default plugins and
 * their defaults: boot.max_transfers 100, so the PCs past it wait their Retry-After as iPXE
 * does). Printed: time to all up (every refresh stored), ogserve's CPU by phase (from
 * /proc, each phase ending when the last PC finished it), the REST p99s during the storm
 * against the same probes' idle p99s, peak and settled RSS; and the bytes' floor: the same PCs
 * fetching the same files from nginx (Debian's nginx-light, installed when missing) in the
 * same run, the PCs' processes being the same. Twice (STORM_SENDERS): ogserve sending the
 * bytes, then the nginx of packaging/nginx/ogserve.conf in front of it sending them
 * (transfers.handoff), the PCs asking nginx for scripts and files, ogserve deciding.
 */
export default async function storm(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const sender of SENDERS) rows.push(...(await stormOnce(sender)));
  return rows;
}

/** One storm, the bytes of the boot files sent by ogserve itself or by the nginx in front of it. */
async function stormOnce(sender: Sender): Promise<BenchRow[]> {
  const dir = makeTestDir();
  let server: ChildServer | undefined;
  let front: Nginx | undefined;
  let subscribers: ChildProcess | undefined;
  try {
    const ips = Array.from({ length: PCS }, (_, i) => addressOf(i));
    const liveDir = path.join(dir, 'live');
    mkdirSync(path.join(liveDir, 'ogLive'), { recursive: true });
    writeFileSync(path.join(liveDir, 'ogLive', 'ogvmlinuz'), Buffer.alloc(KERNEL_MIB * 2 ** 20, 7));
    writeFileSync(path.join(liveDir, 'ogLive', 'oginitrd.img'), Buffer.alloc(INITRD_MIB * 2 ** 20, 8));
    const log = await freePort();
    const handoff = { transfers: { handoff: 'nginx', handoff_log_port: log } };
    const config = {
      log: { level: 'warn' },
      live: { directory: liveDir },
      rest: { max_response_bytes: 16 * 1024 * 1024, trusted_proxies: ['127.0.0.1'] },
      ...(sender === 'nginx' ? handoff : {}),
    };
    await prepareSite(
      dir,
      async (s) => {
        await addLabInventory(s, ips);
        // Every PC boots the live image, as a lab's do in the morning.
        const mode = await s.post('/mode', { clients: ips, mode: 'ogLive' });
        if (mode.status !== 200) throw new Error(`POST /mode: ${mode.status} ${mode.text.slice(0, 200)}`);
      },
      config,
    );
    server = await spawnServer({ dir, config, nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [] });
    if (sender === 'nginx') front = await startFront(dir, { upstream: server.port, log });
    // Where PCs fetch their scripts and files: ogserve, or the nginx in front of it.
    const pcPort = front?.port ?? server.port;
    await sleep(2000);
    const idleRss = (await settledMemory(server.pid, 10)).rss;
    subscribers = await openSubscribers(server.port);
    const idle = await probes(server.port, ips, sleepDone(IDLE_SECONDS * 1000));

    const pcs = ips.map((ip, i) => ({ ip, mac: benchMac(i) }));
    const sampler = new Sampler(server.pid);
    let allUp = false;
    const during = probes(server.port, ips, () => allUp);
    const frontCpu = front ? front.pids().reduce((sum, pid) => sum + cpuMs(pid), 0) : 0;
    const wave = startPcs({ port: pcPort, agentPort: server.agentPort, pcs, scriptPath: '/boot/ipxe?mac=MAC' });
    const report = merge(await wave.reports);
    // From the moment the first process of PCs had its orders: starting node is not the storm.
    const t0 = report.startedAt;
    // A PC whose transfer failed does not boot (iPXE gives up on a reset): counted, not waited for.
    await untilRefreshed(server, PCS - report.errors.length, 180_000);
    const upAt = Date.now();
    allUp = true;
    const frontCpuMs = front ? front.pids().reduce((sum, pid) => sum + cpuMs(pid), 0) - frontCpu : 0;
    const reads = await during;
    sampler.stop();
    const events = await countEvents(subscribers);
    wave.stop();
    const afterRss = (await settledMemory(server.pid, 20)).rss;

    const nginx = await startNginx(dir, { '/boot/files/': liveDir }, '/boot/files/ogLive/ogvmlinuz');
    let floor: { seconds: number; cpu: number; report: StormReport };
    try {
      const cpuBefore = nginx.pids().reduce((sum, pid) => sum + cpuMs(pid), 0);
      const files = ['/boot/files/ogLive/ogvmlinuz', '/boot/files/ogLive/oginitrd.img'];
      const bytesOnly = startPcs({ port: nginx.port, pcs, files });
      const done = merge(await bytesOnly.reports);
      bytesOnly.stop();
      floor = {
        seconds: (done.filesAt - done.startedAt) / 1000,
        cpu: nginx.pids().reduce((sum, pid) => sum + cpuMs(pid), 0) - cpuBefore,
        report: done,
      };
    } finally {
      await nginx.stop();
    }

    const seconds = (upAt - t0) / 1000;
    const phases = [
      ['scripts', t0, report.scriptsAt],
      ['files', report.scriptsAt, report.filesAt],
      ['agents', report.filesAt, upAt],
    ] as const;
    const gb = report.bytes / 1e9;
    const ratio = (a: number, b: number) => fmt(a / Math.max(b, 0.001), 2);
    return [
      {
        workload: `storm: ${PCS} PCs power on (script, ${KERNEL_MIB}+${INITRD_MIB} MiB, agent + live refresh), bytes sent by ${sender}`,
        figures: {
          all_up_s: fmt(seconds, 1),
          scripts_done_s: fmt((report.scriptsAt - t0) / 1000, 1),
          files_done_s: fmt((report.filesAt - t0) / 1000, 1),
          nginx_files_s: fmt(floor.seconds, 1),
          all_up_to_floor: ratio(seconds, floor.seconds),
          retries: report.retries,
          failed_pcs: report.errors.length,
          ...(report.errors.length > 0 ? { first_failure: JSON.stringify(report.errors[0]) } : {}),
          nginx_failed_pcs: floor.report.errors.length,
          ...warnings(server),
          goal: 'all up <= 1.2x the floor',
        },
      },
      {
        workload: `storm: ogserve CPU by phase (${PCS} PCs), bytes sent by ${sender}`,
        figures: {
          ...Object.fromEntries(phases.map(([name, from, to]) => [`${name}_cpu_ms`, fmt(sampler.between(from, to), 0)])),
          ...Object.fromEntries(phases.map(([name, from, to]) => [`${name}_s`, fmt((to - from) / 1000, 1)])),
          total_cpu_s: fmt(sampler.between(t0, upAt) / 1000, 1),
          files_cpu_ms_per_gb: fmt(sampler.between(report.scriptsAt, report.filesAt) / gb, 0),
          nginx_cpu_ms_per_gb: fmt(floor.cpu / (floor.report.bytes / 1e9), 0),
          ...(front ? { nginx_front_cpu_s: fmt(frontCpuMs / 1000, 1) } : {}),
          events_to_subscribers: events,
        },
      },
      {
        workload: `storm: REST p99 during it, against idle (a read every ${PROBE_EVERY_MS} ms), bytes sent by ${sender}`,
        figures: {
          clients_idle_p99_ms: fmt(idle.clients.p99ms, 1),
          clients_storm_p99_ms: fmt(reads.clients.p99ms, 1),
          clients_ratio: ratio(reads.clients.p99ms, idle.clients.p99ms),
          info_idle_p99_ms: fmt(idle.info.p99ms, 1),
          info_storm_p99_ms: fmt(reads.info.p99ms, 1),
          info_ratio: ratio(reads.info.p99ms, idle.info.p99ms),
          storm_max_ms: fmt(Math.max(reads.clients.maxms, reads.info.maxms), 0),
          errors: idle.clients.errors + idle.info.errors + reads.clients.errors + reads.info.errors,
          goal: 'storm p99 <= 2x idle',
        },
      },
      {
        workload: `storm: ogserve RSS, bytes sent by ${sender}`,
        figures: { idle_settled_mib: idleRss, peak_mib: sampler.peakRss, after_settled_mib: afterRss },
      },
    ];
  } finally {
    subscribers?.kill();
    await front?.stop();
    await server?.stop();
    await removeTestStore(dir);
  }
}

/** How many warnings the service logged, and the distinct messages of the first few: what it had to refuse or cut. */
function warnings(server: ChildServer): BenchRow['figures'] {
  const logged = server.logs.filter((line) => line.level === 'warn' || line.level === 'error' || line.level === 'unparsed');
  const messages = [...new Set(logged.map((line) => line.msg))].slice(0, 3);
  return logged.length === 0 ? { service_warnings: 0 } : { service_warnings: logged.length, their_messages: JSON.stringify(messages) };
}

/** The PCs, in child processes of PCS_PER_CHILD each: their reports once every PC is done, and how to end them. */
function startPcs(storm: Storm): { reports: Promise<StormReport[]>; stop(): void } {
  const children: ChildProcess[] = [];
  const reports: Promise<StormReport>[] = [];
  for (let i = 0; i < storm.pcs.length; i += PCS_PER_CHILD) {
    const child = fork(path.join(__dirname, 'support', 'storm-pcs.js'), [], { stdio: ['pipe', 'inherit', 'inherit', 'ipc'] });
    children.push(child);
    reports.push(
      new Promise((resolve, reject) => {
        child.once('message', (m) => resolve(m as StormReport));
        child.once('exit', (code) => reject(new Error(`storm PCs exited ${code}`)));
      }),
    );
    child.stdin!.end(JSON.stringify({ ...storm, pcs: storm.pcs.slice(i, i + PCS_PER_CHILD) }));
  }
  return {
    reports: Promise.all(reports),
    stop: () => {
      for (const child of children) {
        child.removeAllListeners('exit');
        child.send('stop');
      }
    },
  };
}

function merge(reports: StormReport[]): StormReport {
  return {
    startedAt: Math.min(...reports.map((r) => r.startedAt)),
    scriptsAt: Math.max(...reports.map((r) => r.scriptsAt)),
    filesAt: Math.max(...reports.map((r) => r.filesAt)),
    upAt: Math.max(...reports.map((r) => r.upAt)),
    scriptMs: reports.flatMap((r) => r.scriptMs),
    bytes: reports.reduce((sum, r) => sum + r.bytes, 0),
    retries: reports.reduce((sum, r) => sum + r.retries, 0),
    errors: reports.flatMap((r) => r.errors),
  };
}

/** GET /clients and GET /client/info (a PC of the lab each time), paced, until `done`. */
async function probes(port: number, ips: string[], done: () => boolean) {
  const headers = { Authorization: TOKEN };
  const [clients, info] = await Promise.all([
    pacedProbe(port, '/clients', headers, undefined, PROBE_EVERY_MS, done),
    pacedProbe(port, '/client/info', headers, { client: [ips[Math.floor(ips.length / 2)]] }, PROBE_EVERY_MS, done),
  ]);
  return { clients, info };
}

/** The console's live stream (GET /events, every event) open in SUBSCRIBERS readers of a child process. */
async function openSubscribers(port: number): Promise<ChildProcess> {
  const child = fork(path.join(__dirname, 'support', 'event-subscribers.js'), [String(port), TOKEN, String(SUBSCRIBERS)], {
    stdio: 'inherit',
  });
  await new Promise((resolve) => child.once('message', resolve));
  return child;
}

/** Frames the subscribers received so far, over all streams. */
function countEvents(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve((m as { events: number }).events));
    child.send('count');
  });
}

/** The service's CPU and RSS sampled every 200 ms: CPU between two moments, the peak RSS. */
class Sampler {
  private readonly samples: { at: number; cpu: number }[] = [];
  peakRss = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly pid: number) {
    this.sample();
    this.timer = setInterval(() => this.sample(), 200);
  }

  private sample(): void {
    this.samples.push({ at: Date.now(), cpu: cpuMs(this.pid) });
    this.peakRss = Math.max(this.peakRss, rssMiBOf(this.pid));
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }

  /** CPU ms used between two epoch ms, interpolated between the samples around each. */
  between(from: number, to: number): number {
    return this.at(to) - this.at(from);
  }

  private at(t: number): number {
    const after = this.samples.findIndex((s) => s.at >= t);
    if (after <= 0) return after === 0 ? this.samples[0]!.cpu : this.samples.at(-1)!.cpu;
    const [a, b] = [this.samples[after - 1]!, this.samples[after]!];
    return a.cpu + ((b.cpu - a.cpu) * (t - a.at)) / Math.max(1, b.at - a.at);
  }
}

function sleepDone(ms: number): () => boolean {
  const end = Date.now() + ms;
  return () => Date.now() >= end;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
