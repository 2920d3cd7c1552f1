import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

/**
 * The manifest an installed live image carries: the sha256 of each of its files, in
 * sha256sum's format, so that `sha256sum -c SHA256SUMS` in the folder checks it by hand too.
 */
export const MANIFEST = 'SHA256SUMS';

/** The files an ogLive ISO holds under `ogclient/`, as oglivecli installs them: kernel, initrd, root image. */
export const LIVE_FILES = ['ogvmlinuz', 'oginitrd.img', 'ogclient.sqfs'] as const;

export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

/** Hash `files` (names in `dir`) into `dir`'s manifest. */
export async function writeManifest(dir: string, files: readonly string[]): Promise<void> {
  const lines: string[] = [];
  for (const name of files) lines.push(`${await sha256File(path.join(dir, name))}  ${name}`);
  await writeFile(path.join(dir, MANIFEST), `${lines.join('\n')}\n`, { mode: 0o644 });
}

/** File name -> sha256 of `dir`'s manifest; null when it has none. Lines of another shape are skipped. */
export async function readManifest(dir: string): Promise<Map<string, string> | null> {
  let text: string;
  try {
    text = await readFile(path.join(dir, MANIFEST), 'utf8');
  } catch {
    return null;
  }
  const entries = new Map<string, string>();
  for (const line of text.split('\n')) {
    // sha256sum writes `<hex>  <name>` (text mode) or `<hex> *<name>` (binary mode); only
    // plain names in the folder itself count (never a path that would lead out of it).
    const match = /^([0-9a-f]{64}) [ *]([A-Za-z0-9][A-Za-z0-9._+-]*)$/.exec(line);
    if (match) entries.set(match[2]!, match[1]!);
  }
  return entries;
}
