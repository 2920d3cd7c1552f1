// System needs: bsdtar
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The name oglivecli's ISOs have, and the directory it installs that one to. */
export const isoName = 'ogLive-noble-6.8.0-31-generic-amd64-r20240716.iso';
export const installedName = 'ogLive-6.8.0-r20240716';

/** Small fake kernel, initrd and root image, as an ogLive ISO holds them under ogclient/. */
export function liveFiles(): Record<string, Buffer> {
  return {
    'ogclient/ogvmlinuz': randomBytes(70_000),
    'ogclient/oginitrd.img': randomBytes(150_000),
    'ogclient/ogclient.sqfs': randomBytes(400_000),
  };
}

/** Write an ISO 9660 image holding `files` (path -> content, or a symbolic link) with bsdtar, as the tests' fake ogLive. */
export function makeIso(out: string, files: Record<string, Buffer | string | { link: string }>): string {
  mkdirSync(path.dirname(out), { recursive: true });
  const src = mkdtempSync(path.join(path.dirname(out), '.iso-src-'));
  try {
    for (const [name, content] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(src, name)), { recursive: true });
      if (typeof content === 'object' && 'link' in content) symlinkSync(content.link, path.join(src, name));
      else writeFileSync(path.join(src, name), content);
    }
    execFileSync('bsdtar', ['-cf', out, '--format', 'iso9660', '-C', src, '.']);
  } finally {
    rmSync(src, { recursive: true, force: true });
  }
  return out;
}

/** A copy of `iso` holding only its first `bytes` bytes: a download cut short. */
export function truncated(iso: string, out: string, bytes: number): string {
  writeFileSync(out, readFileSync(iso).subarray(0, bytes));
  return out;
}

/** Every name in a folder, dot files included, sorted: what must not change when an install fails. */
export function entries(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}
