import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import path from 'node:path';

const TEMP_SUFFIX = '.tmp';

const openFile = promisify(fs.open);
const writeFile = promisify(fs.writeFile);
const fdatasync = promisify(fs.fdatasync);
const fsync = promisify(fs.fsync);
const closeFile = promisify(fs.close);
const renameFile = promisify(fs.rename);

/**
 * Write `name` in the existing `dir` so that a reader (the TFTP server, a booting PC) sees
 * either the old file or the whole new one: a temp file in the same directory, its data
 * synced to disk, then renamed over the target. Without the sync a power cut after the
 * rename can leave an empty file under the target's name. The rename itself is made durable
 * by syncing the directory (`syncDirectory`), once per batch of writes.
 */
export async function writeAtomic(dir: string, name: string, content: string): Promise<void> {
  const target = path.join(dir, name);
  const temp = path.join(dir, `.${name}.${process.pid}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`);
  try {
    // 'wx': never write through something already at the temp name (a planted symlink).
    // Plain descriptors, not FileHandles: a boot file is written with five calls, and a
    // FileHandle costs several times a descriptor's CPU per call, which POST /mode multiplies by thousands.
    const fd = await openFile(temp, 'wx', 0o644);
    try {
      await writeFile(fd, content);
      await fdatasync(fd);
    } finally {
      await closeFile(fd);
    }
    await renameFile(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * Sync a directory's entries to disk: what makes the renames done in it survive a power cut.
 * With `missingOk`, a directory that does not exist has nothing to sync.
 */
export async function syncDirectory(dir: string, options: { missingOk?: boolean } = {}): Promise<void> {
  let fd: number;
  try {
    fd = await openFile(dir, 'r');
  } catch (error) {
    if (options.missingOk && (error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    await fsync(fd);
  } finally {
    await closeFile(fd);
  }
}

/** Remove a file; a file that is already gone is not an error. */
export async function removeFile(dir: string, name: string): Promise<void> {
  await rm(path.join(dir, name), { force: true });
}

/**
 * Remove the regular files and symlinks of `dir` whose name `doomed` picks (nothing else:
 * sub-folders stay); a missing directory has nothing to remove. Resolves with how many went.
 */
export async function removeFilesWhere(dir: string, doomed: (name: string) => boolean): Promise<number> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const names = entries.filter((e) => (e.isFile() || e.isSymbolicLink()) && doomed(e.name)).map((e) => e.name);
  await Promise.all(names.map((n) => rm(path.join(dir, n), { force: true })));
  return names.length;
}

/** Remove temp files a crash left behind (hidden, ending in .tmp); the targets are untouched. */
export function removeStaleTempFiles(dir: string): Promise<number> {
  return removeFilesWhere(dir, (n) => n.startsWith('.') && n.endsWith(TEMP_SUFFIX));
}
