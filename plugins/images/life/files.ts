import { readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileInside } from '../files';

/** What the agent writes beside `<name>.img`, and the image file itself: they move together. */
export const imageSuffixes = ['.img', '.img.full.sum', '.img.sum', '.img.torrent'];

/** `<name>` or a kept version's `<name>@v<n>`: the base of a set of files. */
export const versionBase = (name: string, version: number) => `${name}@v${version}`;

/**
 * Move the files of `fromBase` in `fromDir` to `toBase` in `toDir` (the same file system: a
 * rename each); the names moved. A file that is not there is not an error.
 */
export async function moveFiles(fromDir: string, fromBase: string, toDir: string, toBase: string): Promise<string[]> {
  const moved: string[] = [];
  for (const suffix of imageSuffixes) {
    const from = fileInside(fromDir, fromBase, suffix);
    const to = fileInside(toDir, toBase, suffix);
    if (!from || !to) throw new Error(`'${fromBase}${suffix}' does not stay inside the repository directory`);
    try {
      await rename(from, to);
      moved.push(path.basename(to));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return moved;
}

/** Remove the files of `base` in `dir`; the bytes they held. */
export async function removeFiles(dir: string, base: string): Promise<number> {
  let bytes = 0;
  for (const suffix of imageSuffixes) {
    const file = fileInside(dir, base, suffix);
    if (!file) throw new Error(`'${base}${suffix}' does not stay inside the repository directory`);
    const size = await stat(file).then(
      (s) => s.size,
      () => undefined,
    );
    if (size === undefined) continue;
    await rm(file, { force: true });
    bytes += size;
  }
  return bytes;
}

/** Bytes of the files of `base` in `dir`. */
export async function filesBytes(dir: string, base: string): Promise<number> {
  let bytes = 0;
  for (const suffix of imageSuffixes) {
    const file = fileInside(dir, base, suffix);
    if (file)
      bytes += await stat(file).then(
        (s) => s.size,
        () => 0,
      );
  }
  return bytes;
}

/** Bytes of every file in a folder (a trashed image's). */
export async function folderBytes(dir: string): Promise<number> {
  const names = await readdir(dir).catch(() => [] as string[]);
  let bytes = 0;
  for (const name of names)
    bytes += await stat(path.join(dir, name)).then(
      (s) => (s.isFile() ? s.size : 0),
      () => 0,
    );
  return bytes;
}
