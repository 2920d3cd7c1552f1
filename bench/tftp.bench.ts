import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TftpListener } from '../plugins/tftp';
import { makeTestDir, removeTestStore, startServer } from '../test/support/server';
import { freeUdpPort, startTftpdHpa } from '../test/support/tftp-clients';
import { fmt, type BenchRow } from './support/report';

/** PCs asking for their first stage at once (issue 56's storm): TFTP_BENCH_STORM. */
const STORM = Number(process.env.TFTP_BENCH_STORM ?? 500);
/** Storms against each server, in turn (TFTP_BENCH_ROUNDS). */
const ROUNDS = Number(process.env.TFTP_BENCH_ROUNDS ?? 3);
const firstStage = '/usr/lib/ipxe/snponly.efi';

interface Storm {
  seconds: number;
  done: number;
  failed: number;
  retries: number;
  bytes: number;
}

/**
 * The CPU of a process and every child it forks, in ms so far: a control group of its own
 * (cgroup v2's cpu.stat, or v1's cpuacct). tftpd-hpa ignores SIGCHLD, so its children's
 * time never reaches its own cutime: only the group counts them. Undefined where no group can
 * be made.
 */
function cpuGroup(pid: number): { settled(left: number): Promise<void>; ms(): number; close(): void } | undefined {
  const v2 = existsSync('/sys/fs/cgroup/cgroup.controllers');
  const base = v2 ? '/sys/fs/cgroup' : '/sys/fs/cgroup/cpuacct';
  if (!existsSync(base)) return undefined;
  const group = path.join(base, `ogserve-bench-${process.pid}`);
  try {
    mkdirSync(group);
    writeFileSync(path.join(group, 'cgroup.procs'), String(pid));
  } catch {
    return undefined;
  }
  const procs = () => readFileSync(path.join(group, 'cgroup.procs'), 'latin1').split('\n').filter(Boolean).length;
  return {
    /** Until only `left` processes are in the group (its children of the storm ended), within 30 s. */
    async settled(left: number) {
      for (let i = 0; i < 300 && procs() > left; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    },
    ms: () =>
      v2
        ? Number(/^usage_usec (\d+)/m.exec(readFileSync(path.join(group, 'cpu.stat'), 'latin1'))?.[1]) / 1000
        : Number(readFileSync(path.join(group, 'cpuacct.usage'), 'latin1')) / 1e6,
    close: () => rmdirSync(group),
  };
}

/** The storm's clients, a process of their own; their figures. */
function storm(port: number, file: string, size: number, count = STORM): Promise<Storm> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(
      process.execPath,
      [path.join(__dirname, 'support', 'tftp-storm.js'), String(port), file, String(count), String(size)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as Storm) : reject(new Error(`the storm's clients exited ${code}`))));
  });
}

/**
 * A storm of TFTP fetches of snponly.efi (Debian's iPXE for UEFI, 170 KiB), STORM PCs at once,
 * each from its own address with blksize 1468 and tsize as UEFI firmware asks: against the
 * tftp plugin (ogserve's whole process: its CPU is the server's) and against tftpd-hpa serving
 * the same file from the same folder (the parent and the child it forks per request). Time is
 * the clients' (first request to last block); CPU the server's over the storm.
 */
export default async function tftpBench(): Promise<BenchRow[]> {
  if (!existsSync(firstStage)) return [{ workload: 'tftp storm', figures: { skipped: `${firstStage} missing (ipxe)` } }];
  const size = statSync(firstStage).size;
  const dir = makeTestDir();
  const root = path.join(dir, 'tftpboot');
  mkdirSync(root, { recursive: true });
  copyFileSync(firstStage, path.join(root, 'snponly.efi'));
  const s = await startServer({
    dir,
    // The defaults but the address and port: transfers and the per-address rate as a site has them.
    config: { log: { level: 'warn' }, plugins: ['+tftp'], tftp: { ip: '127.0.0.1', port: 0 } },
  });
  const hpa = process.getuid?.() === 0 ? await startTftpdHpa(root, await freeUdpPort()) : undefined;
  const group = hpa ? cpuGroup(hpa.pid) : undefined;
  const ours: Measured[] = [];
  const theirs: Measured[] = [];
  try {
    const port = s.app.container.resolve(TftpListener).port;
    // One fetch first from each: the file read once, as a server that has served one PC has it.
    await storm(port, 'snponly.efi', size, 1);
    if (hpa && group) {
      await storm(hpa.port, 'snponly.efi', size, 1);
      await group.settled(1);
    }
    // Rounds in turn, each server's median: other work on the machine moves single runs.
    for (let round = 0; round < ROUNDS; round++) {
      const before = process.cpuUsage();
      const run = await storm(port, 'snponly.efi', size);
      const used = process.cpuUsage(before);
      ours.push({ ...run, cpuMs: (used.user + used.system) / 1000 });
      if (!hpa || !group) continue;
      const start = group.ms();
      const other = await storm(hpa.port, 'snponly.efi', size);
      // Its last children end with their transfers (and those it forked for requests sent again, later).
      await group.settled(1);
      theirs.push({ ...other, cpuMs: group.ms() - start });
    }
  } finally {
    await s.close();
    await hpa?.stop();
    await group?.settled(0);
    group?.close();
    await removeTestStore(dir);
  }
  const rows = [row('tftp storm, ogserve', ours)];
  if (theirs.length === 0) {
    const why = !hpa ? 'tftpd-hpa --secure chroots: run as root' : 'no control group could be made to count its children';
    return [...rows, { workload: 'tftp storm, tftpd-hpa', figures: { skipped: why } }];
  }
  const [a, b] = [median(ours), median(theirs)];
  return [
    ...rows,
    row('tftp storm, tftpd-hpa', theirs),
    {
      workload: 'tftp storm, ogserve / tftpd-hpa (medians)',
      figures: { time: fmt(a.seconds / b.seconds, 2), cpu: fmt(a.cpuMs / b.cpuMs, 2) },
    },
  ];
}

interface Measured extends Storm {
  cpuMs: number;
}

/** The median round by time, and the median CPU (each on its own). */
function median(runs: Measured[]): { seconds: number; cpuMs: number } {
  const middle = <T>(values: T[], by: (v: T) => number) => [...values].sort((x, y) => by(x) - by(y))[values.length >> 1]!;
  return { seconds: middle(runs, (r) => r.seconds).seconds, cpuMs: middle(runs, (r) => r.cpuMs).cpuMs };
}

function row(workload: string, runs: Measured[]): BenchRow {
  const { seconds, cpuMs } = median(runs);
  return {
    workload: `${workload}, ${STORM} x snponly.efi at once`,
    figures: {
      seconds: fmt(seconds, 2),
      cpuMs: Math.round(cpuMs),
      cpuMsPerFetch: fmt(cpuMs / STORM, 2),
      rounds: runs.map((r) => `${fmt(r.seconds, 2)}s/${Math.round(r.cpuMs)}ms`).join(','),
      failed: runs.reduce((n, r) => n + r.failed, 0),
      retries: runs.reduce((n, r) => n + r.retries, 0),
    },
  };
}
