import { readFileSync } from 'node:fs';

/** Linux reports process times in clock ticks of USER_HZ, which is 100 on every architecture Node runs on. */
const ticksPerSecond = 100;

/** CPU time (user + system) a process has used so far, in ms, from /proc/<pid>/stat (10 ms resolution). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  // The command name may hold spaces: the fields after its closing parenthesis start at field 3 (state).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[14 - 3]);
  const stime = Number(fields[15 - 3]);
  return ((utime + stime) * 1000) / ticksPerSecond;
}

/** Resident set size of a process now, in MiB (VmRSS of /proc/<pid>/status). */
export function rssMiBOf(pid: number): number {
  return residentMiBOf(pid).rss;
}

export interface Resident {
  /** All of it (VmRSS). */
  rss: number;
  /** Pages of mapped files: the node binary and the shared libraries, shared with other processes. */
  file: number;
  /** Anonymous memory: V8's heap, malloc's, thread stacks. */
  anon: number;
}

/** A process's resident memory now, in MiB, split by what backs it (/proc/<pid>/status). */
export function residentMiBOf(pid: number): Resident {
  const status = readFileSync(`/proc/${pid}/status`, 'latin1');
  const mib = (field: string) => Math.round((Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0) / 1024) * 10) / 10;
  return { rss: mib('VmRSS'), file: mib('RssFile'), anon: mib('RssAnon') };
}

/** The least resident memory of process `pid` over `seconds` of sampling once a second: what it settles at. */
export async function settledMemory(pid: number, seconds: number): Promise<Resident> {
  let least = residentMiBOf(pid);
  for (let second = 0; second < seconds; second++) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = residentMiBOf(pid);
    if (now.rss < least.rss) least = now;
  }
  return least;
}
