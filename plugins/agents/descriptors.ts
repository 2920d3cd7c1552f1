import { readFileSync } from 'node:fs';

/**
 * The process's soft limit on open file descriptors (`ulimit -n`), from /proc/self/limits;
 * undefined where that file does not exist or says "unlimited".
 */
export function descriptorLimit(limitsFile = '/proc/self/limits'): number | undefined {
  let text: string;
  try {
    text = readFileSync(limitsFile, 'latin1');
  } catch {
    return undefined;
  }
  const match = /^Max open files\s+(\d+)\s/m.exec(text);
  return match ? Number(match[1]) : undefined;
}

/** Above any fleet one server holds; the cap where the limit is unknown. */
const noLimitCap = 65_000;

/**
 * How many agent connections the listener may hold: the descriptor limit less a reserve
 * for REST, the database, logs and boot services. One agent is one descriptor; without the
 * reserve a powered-on lab takes every descriptor and REST can no longer accept.
 */
export function agentConnectionCap(limit: number | undefined, reserve: number): number {
  if (limit === undefined) return noLimitCap;
  return Math.max(1, Math.min(noLimitCap, limit - reserve));
}
