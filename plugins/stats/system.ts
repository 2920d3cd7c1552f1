import { readFile } from 'node:fs/promises';
import os from 'node:os';

export interface MemoryFigures {
  size: number;
  free: number;
}

/**
 * Swap size and free space in bytes from /proc/meminfo (values there are in KiB).
 * A system without /proc (not Linux) or without swap reports zeros, as sysinfo(2) would.
 */
export async function swapFigures(meminfoFile = '/proc/meminfo'): Promise<MemoryFigures> {
  let text: string;
  try {
    text = await readFile(meminfoFile, 'utf8');
  } catch {
    return { size: 0, free: 0 };
  }
  return { size: meminfoBytes(text, 'SwapTotal'), free: meminfoBytes(text, 'SwapFree') };
}

/** One `<Key>: <n> kB` line of /proc/meminfo, in bytes; 0 when absent. */
export function meminfoBytes(text: string, key: string): number {
  const match = new RegExp(`^${key}:\\s+(\\d+)\\s*kB`, 'm').exec(text);
  return match ? Number(match[1]) * 1024 : 0;
}

export function memoryFigures(): MemoryFigures {
  return { size: os.totalmem(), free: os.freemem() };
}

/** Whole seconds since the operating system booted. */
export function secondsSinceBoot(): number {
  return Math.floor(os.uptime());
}

export function epochSeconds(ms = Date.now()): number {
  return Math.floor(ms / 1000);
}
