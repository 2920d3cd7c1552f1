import type { ServedFolder } from '../transfers';

/** A folder the boot plugin serves, and what may refuse one of its files (the live images' manifests). */
export type BootFolder = ServedFolder;

/**
 * The folders whose files the boot plugin serves at /boot/files/, in the order it looks
 * (the first holding a path wins): `live.directory` (its images checked against their
 * manifests), `boot.extra_dir`, and the first stages (loaders). Other plugins that serve
 * boot files another way (TFTP) serve these same folders.
 */
export class BootFolders {
  constructor(readonly list: readonly BootFolder[]) {}
}
