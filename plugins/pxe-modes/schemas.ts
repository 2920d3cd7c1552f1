import { type Static, Type } from '@sinclair/typebox';
import { IpList } from 'ogserve';

/** POST /mode. The mode is only ever looked up in the template list, never used as a path. */
export const ModeBody = Type.Object({ clients: IpList(), mode: Type.String({ minLength: 1, maxLength: 256 }) });

/** GET /efi. */
export const EfiQuery = Type.Object({ clients: IpList() });

export const ModesAnswer = Type.Object({ modes: Type.Array(Type.String()) });

/** POST /mode: the addresses no client has (the others got the mode). */
export const ModeAnswer = Type.Object({ unknown: Type.Array(Type.String()) });

export const EfiAnswer = Type.Object({
  clients: Type.Array(Type.Object({ ip: Type.String(), efi: Type.Boolean(), bios: Type.Boolean() })),
});

/** The `pxe-modes` config section. */
export const PxeModesConfig = Type.Object(
  {
    /** Legacy-firmware (grub4dos) per-client files. */
    bios_dir: Type.String({ default: 'tftpboot/menu.lst', path: true }),
    /** UEFI (GRUB) per-client files. */
    uefi_dir: Type.String({ default: 'tftpboot/grub', path: true }),
    /** Holds bios/ and uefi/ template sets; bundled ones unless a site file sets it. */
    templates_dir: Type.String({ default: 'templates/pxe', path: 'install' }),
    /** Address put in boot parameters; '' = rest.ip unless 0.0.0.0, else the first non-loopback IPv4. */
    server_ip: Type.Union([Type.String({ format: 'ipv4' }), Type.Literal('')], {
      default: '',
      expected: 'an IPv4 address, or empty for the automatic choice',
    }),
    /** LANG passed to the live image; '' = this process's LANG, as the reference. */
    lang: Type.String({ default: '', maxLength: 64 }),
    /** Screen mode: digits give `vga=<n>`, other values `video=<value>`; '' = vga=788. */
    vga: Type.String({ default: '', maxLength: 64 }),
  },
  { additionalProperties: false },
);

export type PxeModesSettings = Static<typeof PxeModesConfig>;
