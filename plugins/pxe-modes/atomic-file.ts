import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Write `name` in the existing `dir` so that a reader (the TFTP server, a booting PC) sees
 * either the old file or the whole new one: a temp file in the same directory, then rename.
 */
export async function writeAtomic(dir: string, name: string, content: string): Promise<void> {
  const target = path.join(dir, name);
  const temp = path.join(dir, `.${name}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temp, content, { mode: 0o644 });
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
