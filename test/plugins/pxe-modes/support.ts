import { readdirSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { TestServer } from '../../support/server';

/** Where startServer puts the boot directories (test/support/server.ts). */
export function bootDirs(s: TestServer): { bios: string; uefi: string } {
  return { bios: path.join(s.dir, 'tftpboot', 'menu.lst'), uefi: path.join(s.dir, 'tftpboot', 'grub') };
}

export function biosFile(s: TestServer, name: string): string {
  return path.join(bootDirs(s).bios, name);
}

export function uefiFile(s: TestServer, name: string): string {
  return path.join(bootDirs(s).uefi, name);
}

export function readIfExists(file: string): string | null {
  return existsSync(file) ? readFileSync(file, 'utf8') : null;
}

/** Every file below `dir`, relative, sorted: to prove nothing was written anywhere else. */
export function allFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (sub: string): void => {
    for (const entry of readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const rel = path.join(sub, entry.name);
      if (entry.isDirectory()) walk(rel);
      else out.push(rel);
    }
  };
  walk('');
  return out.sort();
}

/** Files the database writes beside itself (journal, wal): they change on every request. */
export function withoutDatabase(files: string[]): string[] {
  return files.filter((f) => !f.startsWith('ogserve.sqlite'));
}
