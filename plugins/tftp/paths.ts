import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { BootFolder } from '../boot';

/**
 * One segment of a path a PC asks for over TFTP: the characters of boot file names (those
 * `/boot/files` takes, and `:` for GRUB's per-PC files `01-xx:xx:...`, `@ = , %`, which
 * TFTP does not decode). No `.` or `..`, no dot file.
 */
const segment = /^[A-Za-z0-9_+~:@=,%-][A-Za-z0-9._+~:@=,%-]{0,254}$/;

/**
 * The path under the TFTP root that a request names, or undefined when it is not one ogserve
 * serves: leading slashes dropped (GRUB sends `/grub/...`), backslashes read as slashes (PXE
 * clients of Windows servers send them), then every segment plain.
 */
export function requestPath(name: string): string | undefined {
  const relative = name.replace(/\\/g, '/').replace(/^\/+/, '');
  if (relative.length === 0 || relative.length > 1024) return undefined;
  const segments = relative.split('/');
  return segments.every((s) => segment.test(s)) ? relative : undefined;
}

/** A folder TFTP serves: a boot folder under a prefix (`grub/` for the UEFI per-PC files) or at the root. */
export interface TftpFolder extends BootFolder {
  /** The first segment that leads here (`grub`), or '' for the whole root. */
  prefix: string;
}

/** A file found: its real path (links followed, inside its folder), its folder and its size. */
export interface Found {
  real: string;
  folder: TftpFolder;
  size: number;
  mtimeMs: number;
  ino: number;
}

/**
 * The first folder holding `file` (a path `requestPath` answered) as a readable regular file
 * whose real path stays inside that folder.
 */
export async function findFile(folders: readonly TftpFolder[], file: string): Promise<Found | undefined> {
  for (const folder of folders) {
    let inner = file;
    if (folder.prefix) {
      if (!file.startsWith(`${folder.prefix}/`)) continue;
      inner = file.slice(folder.prefix.length + 1);
    }
    const [real, realRoot] = await Promise.all(
      [realpath(path.join(folder.dir, inner)), realpath(folder.dir)].map((p) => p.catch(() => null)),
    );
    if (!real || !realRoot || !real.startsWith(realRoot + path.sep)) continue;
    const info = await stat(real).catch(() => null);
    if (!info?.isFile()) continue;
    const readable = await access(real, constants.R_OK).then(
      () => true,
      () => false,
    );
    if (readable) return { real, folder, size: info.size, mtimeMs: info.mtimeMs, ino: info.ino };
  }
  return undefined;
}
