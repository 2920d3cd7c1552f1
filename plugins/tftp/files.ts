import type { BootFolder } from '../boot';
import type { Lookup } from './server';
import { type Found, type TftpFolder, findFile } from './paths';
import type { Sources } from './sources';

/** A file ogserve makes itself rather than reads from a folder (GRUB's stub config). */
export interface MadeFile {
  /** The path it answers at, when no folder holds one there. */
  path: string;
  /** Its bytes for the PC at this address. */
  bytes(address: string): Promise<Buffer> | Buffer;
}

/**
 * What each path a PC asks for is: the first folder holding it (the per-PC boot files'
 * folders under `menu.lst/` and `grub/`, then the boot plugin's folders: the live directory,
 * `boot.extra_dir`, the first stages), else a file ogserve makes. A path may be swapped for
 * another first (`substitute`: a Secure Boot PC's loader). A live image's file that differs
 * from its manifest is refused.
 */
export class TftpFiles {
  private readonly folders: TftpFolder[];

  constructor(
    perPc: { bios: string; uefi: string },
    boot: readonly BootFolder[],
    private readonly sources: Sources,
    private readonly made: readonly MadeFile[] = [],
    private readonly substitute: (file: string, address: string) => Promise<string> = async (file) => file,
  ) {
    this.folders = [
      { dir: perPc.bios, prefix: 'menu.lst' },
      { dir: perPc.uefi, prefix: 'grub' },
      ...boot.map((folder) => ({ ...folder, prefix: '' })),
    ];
  }

  /** Where each path is looked for, in order (for the start log and doctor). */
  get where(): { prefix: string; dir: string }[] {
    return this.folders.map(({ prefix, dir }) => ({ prefix, dir }));
  }

  /** The file a folder holds at `file`, links followed (doctor). */
  find(file: string): Promise<Found | undefined> {
    return findFile(this.folders, file);
  }

  async lookup(asked: string, address: string): Promise<Lookup> {
    const file = await this.substitute(asked, address);
    const found = await findFile(this.folders, file);
    if (found) {
      const refused = await found.folder.refusal?.(found.real);
      if (refused) return { refused: 'damaged', message: `${file} is not served: ${refused}` };
      return { name: file, size: found.size, open: () => this.sources.open(found) };
    }
    const made = this.made.find((m) => m.path === file);
    if (made) {
      const bytes = await made.bytes(address);
      return {
        name: file,
        size: bytes.length,
        open: async () => ({
          size: bytes.length,
          read: (offset, length) => bytes.subarray(offset, offset + length),
          release: () => undefined,
        }),
      };
    }
    return { refused: 'not_found', message: 'File not found' };
  }
}
