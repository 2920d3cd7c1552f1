import { lstat, mkdir, statfs, unlink } from 'node:fs/promises';
import path from 'node:path';

/**
 * The image files in the repository directory. Paths are built only from a stored image
 * name and checked to land directly inside the directory, so no name (a migrated record
 * included) can reach a file elsewhere.
 */

/** What the agent writes beside `<name>.img` (checksums, torrent): removed with it. */
const companions = ['.img', '.img.full.sum', '.img.sum', '.img.torrent'];

/** The path of `<name><suffix>` inside `directory`, or undefined when the name could leave it. */
export function fileInside(directory: string, name: string, suffix: string): string | undefined {
  if (name === '' || name === '.' || name === '..' || /[/\\\u0000]/.test(name)) return undefined;
  const root = path.resolve(directory);
  const file = path.resolve(root, name + suffix);
  return path.dirname(file) === root ? file : undefined;
}

export interface RemovedFiles {
  removed: string[];
  /** Files that could not be removed (other than "not there"), with why. */
  failed: { file: string; error: string }[];
}

/** Remove an image's file and companions; a missing file is not an error (it may sit in another repository). */
export async function removeImageFiles(directory: string, name: string): Promise<RemovedFiles> {
  const result: RemovedFiles = { removed: [], failed: [] };
  for (const suffix of companions) {
    const file = fileInside(directory, name, suffix);
    if (!file) {
      result.failed.push({ file: name + suffix, error: 'the name does not stay inside the repository directory' });
      continue;
    }
    try {
      // unlink removes a symbolic link itself, never what it points to.
      await unlink(file);
      result.removed.push(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') result.failed.push({ file, error: (error as Error).message });
    }
  }
  return result;
}

/** Size, mode and change time of `<name>.img`, for agents whose answer lacks them. */
export async function imageFileStat(directory: string, name: string): Promise<{ size: bigint; mode: number; mtime: bigint } | undefined> {
  const file = fileInside(directory, name, '.img');
  if (!file) return undefined;
  try {
    const stat = await lstat(file, { bigint: true });
    return stat.isFile() ? { size: stat.size, mode: Number(stat.mode), mtime: stat.mtimeMs / 1000n } : undefined;
  } catch {
    return undefined;
  }
}

/** Free and total bytes of the file system holding the repository directory (created if missing). */
export async function diskSpace(directory: string): Promise<{ free: bigint; total: bigint }> {
  await mkdir(directory, { recursive: true });
  const fs = await statfs(directory, { bigint: true });
  return { free: fs.bfree * fs.bsize, total: fs.blocks * fs.bsize };
}
