import fs from 'node:fs';
import { promisify } from 'node:util';

/** What `BootFiles.reconcile` found and did. */
export interface Reconciliation {
  /** Clients whose files were compared with what their record renders to. */
  clients: number;
  /** Clients that had at least one file written or removed. */
  clientsPutRight: number;
  /** Files written because they were missing. */
  missing: number;
  /** Files written because their bytes differed from what the record renders to. */
  different: number;
  /** Files removed because the client's mode has no template for that firmware. */
  unwanted: number;
  /** Files removed because no client has their MAC. */
  orphans: number;
  /** Temp files of interrupted writes removed. */
  tempFiles: number;
  /** Clients left as they are because their mode has no template, by mode. */
  untemplated: { mode: string; clients: number }[];
  /** Clients whose files could not be read or written, and the first error. */
  failed: number;
  error?: string;
  ms: number;
}

export function noReconciliation(): Reconciliation {
  return {
    clients: 0,
    clientsPutRight: 0,
    missing: 0,
    different: 0,
    unwanted: 0,
    orphans: 0,
    tempFiles: 0,
    untemplated: [],
    failed: 0,
    ms: 0,
  };
}

/** Whether anything on disk had to change: a crash, a kill, or an edit behind ogserve's back. */
export function changedAnything(r: Reconciliation): boolean {
  return r.missing + r.different + r.unwanted + r.orphans + r.tempFiles > 0;
}

/** The log line of a reconciliation: every count, so a site sees what a crash had left. */
export function describeReconciliation(r: Reconciliation): string {
  const parts = [
    `boot files of ${r.clients} clients checked against their records in ${Math.round(r.ms)} ms`,
    `${r.missing} missing and ${r.different} different written (${r.clientsPutRight} clients)`,
    `${r.unwanted} without a template removed`,
    `${r.orphans} of unknown MACs removed`,
    `${r.tempFiles} temp files removed`,
  ];
  const untemplated = r.untemplated.reduce((n, u) => n + u.clients, 0);
  if (untemplated > 0) parts.push(`${untemplated} clients left as they are (mode without a template)`);
  if (r.failed > 0) parts.push(`${r.failed} clients failed: ${r.error}`);
  return parts.join('; ');
}

const openFile = promisify(fs.open);
const readFile = promisify(fs.read);
const closeFile = promisify(fs.close);

/**
 * How a file stands against the bytes it should hold. Reads at most one byte more than
 * those: open, read, close on plain descriptors (readFile's extra fstat and FileHandles
 * doubled the cost of a start that checks 20,000 files).
 */
export async function compareFile(file: string, wanted: Buffer): Promise<'missing' | 'same' | 'different'> {
  let fd: number;
  try {
    fd = await openFile(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
  try {
    const buffer = Buffer.allocUnsafe(wanted.length + 1);
    const { bytesRead } = await readFile(fd, buffer, 0, buffer.length, 0);
    return bytesRead === wanted.length && buffer.subarray(0, bytesRead).equals(wanted) ? 'same' : 'different';
  } finally {
    await closeFile(fd);
  }
}
