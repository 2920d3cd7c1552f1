import type { MadeFile } from './files';

/**
 * GRUB's first config (`grub/grub.cfg`), when the site's folder has none: Debian's signed
 * network GRUB (which shim starts on a Secure Boot PC) reads `$prefix/grub.cfg` over TFTP from
 * the server that gave it; this loads the PC's own file, the one pxe-modes writes for its mode
 * (`grub/01-<its MAC>`), so every mode boots as its GRUB file says. A PC without one is told
 * so on its screen and handed back to its firmware.
 */
export const grubConfig: MadeFile = {
  path: 'grub/grub.cfg',
  bytes: () =>
    Buffer.from(
      [
        '# ogserve: the PC boots what its own GRUB file says (grub/01-<its MAC>, written by pxe-modes for its boot mode).',
        'configfile $prefix/01-$net_default_mac',
        'echo "ogserve: no boot file for $net_default_mac on $net_default_server: is this PC in the inventory?"',
        'sleep 15',
        'exit',
        '',
      ].join('\n'),
    ),
};
