import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

/**
 * One file hashed on a thread of its own (FileHasher runs it): read in large blocks into
 * the digests asked for, so the event loop of the service never waits on a byte of it.
 * Answers `{ size, digests }` (hex), or `{ error, code }`.
 */

export interface HashRequest {
  file: string;
  algorithms: string[];
  /** Bytes read at a time. */
  blockBytes: number;
}

export type HashAnswer = { size: number; digests: Record<string, string> } | { error: string; code?: string };

function hashFile({ file, algorithms, blockBytes }: HashRequest): HashAnswer {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    if (!fstatSync(fd).isFile()) return { error: `${file} is not a regular file`, code: 'ENOTFILE' };
    const hashes = algorithms.map((name) => createHash(name));
    const block = Buffer.allocUnsafe(blockBytes);
    let size = 0;
    for (;;) {
      const read = readSync(fd, block, 0, blockBytes, null);
      if (read === 0) break;
      const chunk = read === blockBytes ? block : block.subarray(0, read);
      for (const hash of hashes) hash.update(chunk);
      size += read;
    }
    return { size, digests: Object.fromEntries(algorithms.map((name, i) => [name, hashes[i]!.digest('hex')])) };
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    return { error: e.message, code: e.code };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

parentPort?.postMessage(hashFile(workerData as HashRequest));
