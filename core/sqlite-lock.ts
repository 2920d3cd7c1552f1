import { readFileSync, statSync } from 'node:fs';
import sqlite3 from 'sqlite3';
import { StartupError } from './errors';

export interface SqliteLock {
  release(): Promise<void>;
}

/**
 * One ogserve per SQLite file. Two services on one file would each hold their agents' links,
 * write the same boot files and race each other's caches, so the second is refused. The lock
 * is an exclusive SQLite lock on `<file>.lock` (a small empty database of its own), held for
 * the life of the process: the system drops it when the process ends however it ends, so a
 * killed service leaves no stale lock behind. The file itself stays; it holds nothing.
 */
export async function lockSqliteFile(file: string): Promise<SqliteLock> {
  const lockFile = `${file}.lock`;
  const handle = await new Promise<sqlite3.Database>((resolve, reject) => {
    const opened: sqlite3.Database = new sqlite3.Database(lockFile, (error) => (error ? reject(error) : resolve(opened)));
  }).catch((error: Error) => {
    throw new StartupError(`database.path: cannot open the lock file ${lockFile}: ${error.message}`);
  });
  const release = () => new Promise<void>((resolve) => handle.close(() => resolve()));
  try {
    // In exclusive locking mode a lock once taken is kept until the connection closes.
    await new Promise<void>((resolve, reject) =>
      handle.exec('pragma locking_mode = exclusive; begin exclusive; commit', (error) => (error ? reject(error) : resolve())),
    );
  } catch (error) {
    await release();
    if ((error as NodeJS.ErrnoException).code !== 'SQLITE_BUSY')
      throw new StartupError(`database.path: cannot lock ${lockFile}: ${(error as Error).message}`);
    const holder = lockHolder(lockFile);
    throw new StartupError(
      `database.path: ${file} is in use by another ogserve${holder ? ` (pid ${holder})` : ''}; a SQLite file serves one ogserve at a time`,
    );
  }
  return { release };
}

/** The process holding a POSIX lock on `file`, from /proc/locks (Linux; undefined elsewhere). */
function lockHolder(file: string): number | undefined {
  try {
    const inode = statSync(file).ino;
    for (const line of readFileSync('/proc/locks', 'utf8').split('\n')) {
      // "1: POSIX  ADVISORY  WRITE 1234 08:01:5678 1073741824 1073742335"
      const fields = line.trim().split(/\s+/);
      const pid = Number(fields[4]);
      if (Number(fields[5]?.split(':')[2]) === inode && pid !== process.pid) return pid;
    }
  } catch {
    // No /proc: the message goes without the pid.
  }
  return undefined;
}
