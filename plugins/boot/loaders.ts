import { copyFile, link, mkdir, readdir, realpath, rename, rm, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'ogserve';
import { type PeSignature, peSignature } from '../live';

/** The PCs a first stage is for. */
export type LoaderFirmware = 'bios' | 'uefi' | 'secure-boot';

/** A first stage PCs fetch before anything else, by the name it is served under, and where Debian installs it. */
export interface LoaderSpec {
  name: string;
  firmware: LoaderFirmware;
  what: string;
  /** Debian's file for it and its package, in the order looked for. */
  debian: { file: string; package: string }[];
}

export const LOADERS: readonly LoaderSpec[] = [
  {
    name: 'undionly.kpxe',
    firmware: 'bios',
    what: "iPXE for BIOS PXE (the card's UNDI driver)",
    debian: [{ file: '/usr/lib/ipxe/undionly.kpxe', package: 'ipxe' }],
  },
  {
    name: 'snponly.efi',
    firmware: 'uefi',
    what: "iPXE for UEFI (the firmware's network driver)",
    debian: [{ file: '/usr/lib/ipxe/snponly.efi', package: 'ipxe' }],
  },
  {
    name: 'ipxe.efi',
    firmware: 'uefi',
    what: 'iPXE for UEFI (its own network drivers)',
    debian: [
      { file: '/usr/lib/ipxe/ipxe.efi', package: 'ipxe' },
      { file: '/boot/ipxe.efi', package: 'ipxe' },
    ],
  },
  {
    name: 'shimx64.efi',
    firmware: 'secure-boot',
    what: 'shim signed by Microsoft, the first stage Secure Boot firmware accepts',
    debian: [{ file: '/usr/lib/shim/shimx64.efi.signed', package: 'shim-signed' }],
  },
  {
    name: 'grubx64.efi',
    firmware: 'secure-boot',
    what: "GRUB for the network signed by Debian, which shim loads (it fetches over TFTP: Debian's build has no http at run time)",
    debian: [{ file: '/usr/lib/grub/x86_64-efi-signed/grubnetx64.efi.signed', package: 'grub-efi-amd64-signed' }],
  },
];

/** A first stage as found on this machine. */
export interface FoundLoader extends LoaderSpec {
  /** The file it is served from (undefined: not found). */
  source?: string;
  /** The package it came from (Debian's places), or undefined (`boot.loaders_dir`). */
  package?: string;
  size?: number;
  /** Its Authenticode signature (EFI files). */
  signature?: PeSignature;
}

/** How often the copies are checked against their sources (a package upgrade replaces them). */
const recheckMs = 60 * 60 * 1000;

declare module 'ogserve' {
  interface CommandLineParts {
    /** `ogserve doctor boot`: where the first stages are found on this machine. */
    bootLoaders: typeof BootLoaders;
  }
}

/**
 * The first stages PCs start from: Debian's ipxe, shim-signed and grub-efi-amd64-signed where
 * Debian installs them, or the files of `boot.loaders_dir` when the site names one (by the
 * served name, or Debian's). They are linked or copied, under the names PCs ask for, into a folder of
 * the state directory that the boot plugin serves at /boot/files/ (and the tftp plugin over
 * TFTP), after the site's own folders: a site's file of the same name wins. The copies follow
 * their sources at start and hourly; a copy whose source went is removed.
 */
export class BootLoaders {
  private timer?: NodeJS.Timeout;

  constructor(
    /** `boot.loaders_dir`, or undefined for Debian's places. */
    readonly loadersDir: string | undefined,
    /** `boot.loaders_served_dir`: where the copies are served from. */
    readonly folder: string,
    private readonly log?: Logger,
  ) {}

  /** Each first stage: where it was found on this machine, its size and its signature. */
  async find(): Promise<FoundLoader[]> {
    return Promise.all(LOADERS.map((spec) => this.findOne(spec)));
  }

  private async findOne(spec: LoaderSpec): Promise<FoundLoader> {
    const candidates = this.loadersDir
      ? [spec.name, ...spec.debian.map((d) => path.basename(d.file))].map((name) => ({
          file: path.join(this.loadersDir!, name),
          package: undefined,
        }))
      : spec.debian;
    for (const candidate of candidates) {
      const info = await stat(candidate.file).catch(() => null);
      if (!info?.isFile()) continue;
      const signature = spec.name.endsWith('.efi') ? await peSignature(candidate.file) : undefined;
      return { ...spec, source: candidate.file, package: candidate.package, size: info.size, signature };
    }
    return { ...spec };
  }

  /** Copy what changed into the served folder, remove copies whose source went; what was found. */
  async refresh(): Promise<FoundLoader[]> {
    const found = await this.find();
    await mkdir(this.folder, { recursive: true });
    for (const loader of found) {
      const copy = path.join(this.folder, loader.name);
      if (!loader.source) {
        await rm(copy, { force: true });
        continue;
      }
      const [from, to] = await Promise.all([stat(loader.source), stat(copy).catch(() => null)]);
      if (to && to.size === from.size && to.mtimeMs === from.mtimeMs) continue;
      const next = path.join(this.folder, `.${loader.name}.${process.pid}.tmp`);
      await rm(next, { force: true });
      // A hard link costs nothing where the folders share a file system and the system allows it; else a copy with the source's times.
      // The file itself: link() would link a symbolic link (Debian's ipxe.efi is one to /boot), which the served folder refuses.
      const real = await realpath(loader.source);
      await link(real, next).catch(async () => {
        await copyFile(real, next);
        await utimes(next, from.atime, from.mtime);
      });
      await rename(next, copy);
      this.log?.info({ loader: loader.name, from: loader.source }, `first stage ${loader.name} copied to be served`);
    }
    // Anything else in the folder is a leftover (a temp file of an interrupted copy).
    const names = new Set(LOADERS.map((l) => l.name));
    for (const name of await readdir(this.folder)) if (!names.has(name)) await rm(path.join(this.folder, name), { force: true });
    return found;
  }

  /** Refresh now, then hourly, until stopped. */
  async start(): Promise<FoundLoader[]> {
    const found = await this.refresh();
    this.timer = setInterval(() => {
      this.refresh().catch((error: Error) => this.log?.warn({ err: error }, `first stages not refreshed: ${error.message}`));
    }, recheckMs).unref();
    return found;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
