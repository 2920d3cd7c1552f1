import { openSync, readSync, closeSync } from 'node:fs';

/**
 * A test file whose tests do not depend on the database engine says so on its first line;
 * the suite runs once per engine in CI, and such a file runs only in the SQLite pass.
 */
export const engineIndependentMarker = '// Engine-independent: runs once, on SQLite.';

/**
 * A test file whose tests need PostgreSQL (several instances on one database) says so on its
 * first line, `// PostgreSQL only: <why>`: the other passes skip it, saying so in one line.
 */
export const postgresqlOnlyMarker = '// PostgreSQL only:';

/**
 * The compiled test file's first bytes: tsc keeps a file's leading comment, after the helpers
 * it emits for `import * as` (1.5 KiB of them: 512 bytes missed the marker of seven files).
 */
function head(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const bytes = Buffer.alloc(4096);
    const read = readSync(fd, bytes, 0, bytes.length, 0);
    return bytes.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Whether the compiled test file carries the engine-independent marker. */
export function isEngineIndependent(file: string): boolean {
  return head(file).includes(engineIndependentMarker);
}

/** Whether the compiled test file runs on PostgreSQL only. */
export function isPostgresqlOnly(file: string): boolean {
  return head(file)
    .split('\n')
    .some((line) => line.startsWith(postgresqlOnlyMarker));
}
