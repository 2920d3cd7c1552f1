import { randomBytes } from 'node:crypto';
import { readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

const TEMP_SUFFIX = '.tmp';

/**
 * Write `name` in the existing `dir` so that a reader (the TFTP server, a booting PC) sees
 * either the old file or the whole new one: a temp file in the same directory, then rename.
 */
export async function writeAtomic(dir: string, name: string, content: string): Promise<void> {
  const target = path.join(dir, name);
  const temp = path.join(dir, `.${name}.${process.pid}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`);
  try {
    // 'wx': never write through something already at the temp name (a planted symlink).
    await writeFile(temp, content, { mode: 0o644, flag: 'wx' });
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Remove a file; a file that is already gone is not an error. */
export async function removeFile(dir: string, name: string): Promise<void> {
  await rm(path.join(dir, name), { force: true });
}

/** Remove temp files a crash left behind (hidden, ending in .tmp); the targets are untouched. */
export async function removeStaleTempFiles(dir: string): Promise<number> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const stale = names.filter((n) => n.startsWith('.') && n.endsWith(TEMP_SUFFIX));
  await Promise.all(stale.map((n) => rm(path.join(dir, n), { force: true })));
  return stale.length;
}
