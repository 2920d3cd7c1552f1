import type { ChildProcess } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { senderArgs } from '../plugins/multicast/sender';
import { startMulticastLab } from '../test/support/multicast-lab';
import { type BenchRow, fmt } from './support/report';

/** PCs per session, in turn (MULTICAST_BENCH_PCS). */
const SIZES = (process.env.MULTICAST_BENCH_PCS ?? '3,10').split(',').map(Number);
/** The image streamed, MiB of random bytes (MULTICAST_BENCH_MB). */
const MB = Number(process.env.MULTICAST_BENCH_MB ?? 512);
/** Rounds of each (by hand, then by ogserve), the median kept (MULTICAST_BENCH_ROUNDS). */
const ROUNDS = Number(process.env.MULTICAST_BENCH_ROUNDS ?? 3);

/** udp-sender, then its CPU (bash's `times`: its children's user and system) into `times`. */
function timedSender(dir: string): { program: string; times: string } {
  const program = path.join(dir, 'timed-udp-sender');
  const times = path.join(dir, 'sender.times');
  writeFileSync(program, `#!/bin/bash\nudp-sender "$@"\ncode=$?\ntimes > '${times}'\nexit $code\n`);
  chmodSync(program, 0o755);
  return { program, times };
}

/** The sender's CPU seconds from `times` (its second line: children's user and system). */
function senderCpu(file: string): number {
  const [, children] = readFileSync(file, 'utf8').trim().split('\n');
  return children!.split(' ').reduce((sum, part) => {
    const m = /^(\d+)m([\d.]+)s$/.exec(part);
    return sum + (m ? Number(m[1]) * 60 + Number(m[2]) : 0);
  }, 0);
}

/** The PCs' hook for the bench: the stream into nothing (partclone's cost is the PC's, not the server's). */
function nullHook(dir: string): string {
  const file = path.join(dir, 'null-hook');
  writeFileSync(
    file,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's own expansion.
    '#!/bin/sh\nport=${5#MULTICAST:}\nexec udp-receiver --portbase "$port" --interface eth0 --nokbd --receive-timeout 30 --file /dev/null 2>/dev/null\n',
  );
  chmodSync(file, 0o755);
  return file;
}

/** `MB` MiB of random bytes, written in pieces. */
function randomImage(file: string): void {
  const fd = openSync(file, 'w');
  const piece = Buffer.alloc(4 * 2 ** 20);
  for (let written = 0; written < MB * 2 ** 20; written += piece.length) writeSync(fd, randomFillSync(piece));
  closeSync(fd);
}

/**
 * CPU time of every thread of a process so far, in ms, to the nanosecond (each thread's
 * /proc/<pid>/task/<tid>/schedstat: time on a CPU), where /proc/<pid>/stat counts 10 ms ticks.
 */
function cpuMs(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'latin1').split(' ')[0]);
    } catch {
      // A thread that ended meanwhile.
    }
  }
  return ns / 1e6;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const exited = (child: ChildProcess) => new Promise<void>((resolve) => child.once('exit', () => resolve()));

/**
 * Issue 55's bench: one image to 3 and to 10 PCs (network namespaces on a bridge), by
 * udp-sender run by hand, then by ogserve (POST /image/restore, type MULTICAST, each PC's
 * agent running its hook), with the same udp-sender options. Wall time and the sender's CPU
 * for both; for ogserve, its own CPU from the request to the session's end (REST, the agents,
 * the job, reading and writing what the sender says: all it does for the session), beside the
 * sender's. Needs root (namespaces) and udpcast; else one row says why.
 */
export default async function multicastBench(): Promise<BenchRow[]> {
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/udp-sender'))
    return [{ workload: 'multicast', figures: { skipped: 'needs root (network namespaces) and udpcast' } }];
  const work = mkdtempSync(path.join(tmpdir(), 'ogserve-mcast-bench-'));
  try {
    const file = path.join(work, 'lab.img');
    randomImage(file);
    const sender = timedSender(work);
    const hook = nullHook(work);
    const rows: BenchRow[] = [];
    for (const pcs of SIZES) {
      const lab = await startMulticastLab({
        pcs,
        image(_dir, images) {
          mkdirSync(images, { recursive: true });
          linkSync(file, path.join(images, 'lab.img'));
          return '';
        },
        hook,
        multicast: { max_bitrate: '', retries_until_drop: 30, max_wait_s: 30, udp_sender: sender.program },
      });
      try {
        rows.push(...(await runSize(lab, pcs, sender)));
      } finally {
        await lab.close();
      }
    }
    return rows;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function runSize(
  lab: Awaited<ReturnType<typeof startMulticastLab>>,
  pcs: number,
  sender: { program: string; times: string },
): Promise<BenchRow[]> {
  const image = path.join(lab.dir, 'images', 'lab.img');
  const hand = { wall: [] as number[], stream: [] as number[], cpu: [] as number[] };
  const served = {
    ...{ wall: [] as number[], stream: [] as number[], cpu: [] as number[], ogserve: [] as number[] },
    ...{ setup: [] as number[], supervision: [] as number[], idle: [] as number[] },
  };
  for (let round = 0; round < ROUNDS; round++) {
    // By hand: the same udp-sender options ogserve gives it, receivers started first.
    rmSync(sender.times, { force: true });
    const receivers = lab.net.pcs.map((ns) =>
      lab.net.spawnIn(ns, 'udp-receiver', ['--portbase', '9100', '--interface', 'eth0', '--nokbd', '--file', '/dev/null'], {
        stdio: 'ignore',
      }),
    );
    const options = {
      program: '',
      file: image,
      port: 9100,
      address: lab.net.serverIp,
      minReceivers: pcs,
      maxWaitS: 30,
      retriesUntilDrop: 30,
      maxBitrate: '',
    };
    const started = performance.now();
    const child = lab.net.spawnIn(lab.net.server, sender.program, senderArgs(options), { stdio: ['ignore', 'ignore', 'pipe'] });
    // The stream's own time, from what udp-sender says as ogserve's run is timed from its log.
    let handFrom = 0;
    let handTo = 0;
    child.stderr!.setEncoding('latin1').on('data', (chunk: string) => {
      if (!handFrom && chunk.includes('Starting transfer')) handFrom = performance.now();
      if (!handTo && chunk.includes('Transfer complete.')) handTo = performance.now();
    });
    await exited(child);
    hand.wall.push((performance.now() - started) / 1000);
    hand.stream.push((handTo - handFrom) / 1000);
    hand.cpu.push(senderCpu(sender.times));
    await Promise.all(receivers.map(exited));

    // By ogserve: its CPU idle for a while first (probes, timers), then in three phases: the
    // request until the stream starts (REST, the agents, the job, the sender started), the
    // stream (reading what the sender says: the supervision), its end until the job ends
    // (the agents' answers). The phases are told by the session's log, read by this process.
    const pid = lab.service.pid;
    const idleFrom = cpuMs(pid);
    await sleep(3000);
    served.idle.push((cpuMs(pid) - idleFrom) / 3000);
    rmSync(sender.times, { force: true });
    const before = cpuMs(pid);
    const from = performance.now();
    const r = await lab.request('POST', '/image/restore', {
      clients: lab.net.pcIps,
      disk: '1',
      partition: '2',
      id: String(lab.image),
      type: 'MULTICAST',
    });
    if (r.status !== 200) throw new Error(`restore: ${r.text}`);
    const id = (await lab.request('GET', `/multicast/sessions?job=${r.body.job}`)).body.sessions[0].id as number;
    const log = path.join(lab.dir, 'multicast', `session-${id}.log`);
    const said = (words: string) => existsSync(log) && readFileSync(log, 'latin1').includes(words);
    await until(() => said('Starting transfer'), 50);
    const streaming = cpuMs(pid);
    const streamFrom = performance.now();
    await until(() => said('Transfer complete.'), 50);
    const streamed = cpuMs(pid);
    served.stream.push((performance.now() - streamFrom) / 1000);
    await until(async () => ((await lab.request('GET', `/jobs/${r.body.job}`)).body as { finished: string | null }).finished !== null, 500);
    served.wall.push((performance.now() - from) / 1000);
    served.setup.push((streaming - before) / 1000);
    served.supervision.push((streamed - streaming) / 1000);
    served.ogserve.push((cpuMs(pid) - before) / 1000);
    served.cpu.push(senderCpu(sender.times));
    const session = (await lab.request('GET', `/multicast/sessions/${id}`)).body;
    if (session.state !== 'done' || session.states.done !== pcs) throw new Error(`session ${id}: ${JSON.stringify(session).slice(0, 500)}`);
  }
  const senderCpuS = median(served.cpu);
  return [
    {
      workload: `multicast ${MB} MiB to ${pcs} PCs, udp-sender by hand`,
      figures: {
        s: fmt(median(hand.wall), 2),
        stream_s: fmt(median(hand.stream), 2),
        'MB/s': fmt((MB * 1.048576) / median(hand.stream), 1),
        sender_cpu_s: fmt(median(hand.cpu), 2),
      },
    },
    {
      workload: `multicast ${MB} MiB to ${pcs} PCs, by ogserve`,
      figures: {
        s: fmt(median(served.wall), 2),
        stream_s: fmt(median(served.stream), 2),
        'MB/s': fmt((MB * 1.048576) / median(served.stream), 1),
        sender_cpu_s: fmt(senderCpuS, 2),
        ogserve_cpu_s: fmt(median(served.ogserve), 2),
        setup_cpu_s: fmt(median(served.setup), 2),
        supervision_cpu_s: fmt(median(served.supervision), 4),
        idle_cpu_s: fmt(median(served.idle) * median(served.stream), 3),
        'supervision/sender': `${fmt((100 * median(served.supervision)) / senderCpuS, 1)} %`,
      },
    },
  ];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Until `check` holds, looking every `everyMs` (slowly: what it asks of the service is measured). */
async function until(check: () => boolean | Promise<boolean>, everyMs: number, ms = 600_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('the session did not end in time');
    await sleep(everyMs);
  }
}
