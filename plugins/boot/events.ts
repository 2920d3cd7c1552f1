/** What the boot plugin announces on the event bus. */
declare module 'ogserve' {
  interface EventMap {
    /**
     * A step of a PC's network boot: a first stage (`loader`: iPXE, shim, GRUB over TFTP)
     * sent, its boot script served, or a kernel, initrd or root image transfer ended (`bytes`
     * sent, `ms` it took, `cut_short` when the PC closed it early).
     */
    'boot.stage': { client: string; stage: BootStage; bytes?: number; ms?: number; cut_short?: boolean };
  }
}

export type BootStage = 'loader' | 'script' | 'kernel' | 'initrd' | 'root';

/**
 * The stage a served file stands for, by the names ogLive gives them, and a first stage's
 * (iPXE, shim, GRUB: `.efi`, `.kpxe`, `.pxe`, `grldr`), which UEFI HTTP boot fetches from
 * /boot/files; undefined for other files.
 */
export function stageOfFile(name: string): BootStage | undefined {
  const base = name.slice(name.lastIndexOf('/') + 1).toLowerCase();
  if (/vmlinuz|^linux|kernel/.test(base)) return 'kernel';
  if (/initrd|initramfs/.test(base)) return 'initrd';
  if (/\.(sqfs|squashfs)$/.test(base)) return 'root';
  if (/\.(efi|kpxe|kkpxe|pxe|0)$|^grldr$/.test(base)) return 'loader';
  return undefined;
}
