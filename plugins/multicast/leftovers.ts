import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The record of each running sender, one file per session under `<directory>/senders/`:
 * its pid and the process's start time (field 22 of /proc/<pid>/stat, in clock ticks since
 * boot), written as soon as it is started and removed when it exits. A file left behind is a
 * sender a killed ogserve left: the next start ends that process, and only that one (the
 * start time tells a reused pid apart).
 */
export interface SenderRecord {
  session: number;
  pid: number;
  port: number;
  /** /proc/<pid>/stat's start time; '' when it could not be read. */
  start?: string;
}

const folder = (dir: string) => path.join(dir, 'senders');
const fileOf = (dir: string, session: number) => path.join(folder(dir), `${session}.json`);

/** The start time of process `pid`, or undefined when there is no such process (or only its zombie). */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // The command name (field 2) is in parentheses and may hold spaces: count after its end.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' ? undefined : fields[19];
  } catch {
    return undefined;
  }
}

/** Written synchronously right after the spawn: a kill a moment later still finds it. */
export function recordSender(dir: string, record: Omit<SenderRecord, 'start'>): void {
  mkdirSync(folder(dir), { recursive: true });
  writeFileSync(fileOf(dir, record.session), JSON.stringify({ ...record, start: processStart(record.pid) ?? '' }));
}

export function forgetSender(dir: string, session: number): void {
  rmSync(fileOf(dir, session), { force: true });
}

/** What the start found: each record left, and whether its process was still running (and was ended). */
export interface LeftSender extends SenderRecord {
  ended: boolean;
}

/**
 * Ends the senders a killed ogserve left (SIGKILL: nothing of a stream is worth keeping once
 * its supervisor is gone) and removes their records. Waits until each is gone.
 */
export async function endLeftSenders(dir: string): Promise<LeftSender[]> {
  let names: string[];
  try {
    names = readdirSync(folder(dir)).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  const found: LeftSender[] = [];
  for (const name of names) {
    const file = path.join(folder(dir), name);
    let record: SenderRecord | undefined;
    try {
      record = JSON.parse(readFileSync(file, 'utf8')) as SenderRecord;
    } catch {
      record = undefined;
    }
    rmSync(file, { force: true });
    if (!record || !Number.isSafeInteger(record.pid) || record.pid <= 1) continue;
    const start = processStart(record.pid);
    const same = start !== undefined && (record.start === '' || record.start === start);
    if (same) {
      try {
        process.kill(record.pid, 'SIGKILL');
      } catch {
        // Gone between the look and the kill.
      }
      for (let i = 0; i < 100 && processStart(record.pid) === start && start !== undefined; i++)
        await new Promise((resolve) => setTimeout(resolve, 20));
    }
    found.push({ ...record, ended: same });
  }
  return found;
}
