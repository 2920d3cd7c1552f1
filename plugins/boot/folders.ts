import type { BootFolder } from './files';

export type { BootFolder } from './files';

/**
 * The folders whose files the boot plugin serves at /boot/files/, in the order it looks
 * (the first holding a path wins): `live.directory` (its images checked against their
 * manifests), `boot.extra_dir`, and the first stages (loaders). Other plugins that serve
 * boot files another way (TFTP) serve these same folders.
 */
export class BootFolders {
  constructor(readonly list: readonly BootFolder[]) {}
}
