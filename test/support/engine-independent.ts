import { openSync, readSync, closeSync } from 'node:fs';

/**
 * A test file whose tests do not depend on the database engine says so on its first line;
 * the suite runs once per engine in CI, and such a file runs only in the SQLite pass.
 */
export const engineIndependentMarker = '// Engine-independent: runs once, on SQLite.';

/** Whether the compiled test file carries the marker (tsc keeps a file's leading comment). */
export function isEngineIndependent(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(512);
    const read = readSync(fd, head, 0, head.length, 0);
    return head.subarray(0, read).toString('utf8').includes(engineIndependentMarker);
  } finally {
    closeSync(fd);
  }
}
