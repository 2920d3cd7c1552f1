import type { Dirent } from 'node:fs';
import { mkdir, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/** Folders nested deeper than this are not searched (the scripts folder is meant to be flat). */
const maxDepth = 16;

/**
 * The scripts offered to operators: every regular file under `root`, named by its path
 * relative to `root` with `/` separators, sorted. The folder is created if missing.
 * A symlink counts only when it resolves to a regular file inside `root`; symlinked
 * folders are not entered, so nothing outside `root` is ever listed and cycles cannot occur.
 */
export async function listScripts(root: string): Promise<string[]> {
  await mkdir(root, { recursive: true });
  const realRoot = await realpath(root);
  const found: string[] = [];
  await collect(realRoot, realRoot, '', 0, found);
  return found.sort();
}

async function collect(realRoot: string, dir: string, prefix: string, depth: number, found: string[]): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return; // a folder removed or made unreadable while listing is simply not listed
  }
  for (const entry of entries) {
    const name = prefix + entry.name;
    const full = path.join(dir, entry.name);
    if (entry.isFile()) found.push(name);
    else if (entry.isDirectory()) {
      if (depth < maxDepth) await collect(realRoot, full, `${name}/`, depth + 1, found);
    } else if (entry.isSymbolicLink() && (await isFileInside(realRoot, full))) found.push(name);
  }
}

async function isFileInside(realRoot: string, link: string): Promise<boolean> {
  try {
    const target = await realpath(link);
    const relative = path.relative(realRoot, target);
    if (relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) return false;
    return (await stat(target)).isFile();
  } catch {
    return false; // dangling link
  }
}
