import { Type } from '@sinclair/typebox';

const BootFile = (description: string, fallback: string) => Type.String({ default: fallback, maxLength: 255, description });

export const DhcpConfig = Type.Object(
  {
    /** The Kea Control Agent's URL (Kea's own default is http://127.0.0.1:8000/). */
    control_agent: Type.String({
      default: 'http://127.0.0.1:8000/',
      pattern: '^http://[^/\\s?#]+(/[^\\s?#]*)?$',
      expected: 'an http:// URL such as http://127.0.0.1:8000/',
    }),
    /** Boot file names (or URLs) by firmware; '' gives that firmware no boot file. */
    boot_files: Type.Object(
      {
        bios: BootFile('BIOS PXE (option 93 = 0)', 'undionly.kpxe'),
        uefi: BootFile('UEFI x64 (option 93 = 7 or 9)', 'snponly.efi'),
        ipxe: BootFile("iPXE (user class 'iPXE'); '' = the boot plugin's script URL where it is on", ''),
        http: BootFile("UEFI HTTP boot (vendor class 'HTTPClient'): a URL; '' = the boot plugin's snponly.efi where it is on", ''),
      },
      { additionalProperties: false, default: {} },
    ),
    /** The TFTP server's address (siaddr) given with the boot file; '' leaves Kea's own. */
    next_server: Type.Union([Type.String({ format: 'ipv4' }), Type.Literal('')], { default: '', expected: 'an IPv4 address or empty' }),
    /**
     * Address ranges for PCs no reservation names, each in its network's subnet: new PCs
     * booting for discovery (boot.unknown_client `discover`, the enrol plugin).
     */
    pools: Type.Array(
      Type.Object(
        {
          network: Type.String({ pattern: '^[0-9.]+/[0-9]{1,2}$', description: '10.1.3.0/24' }),
          range: Type.String({ pattern: '^[0-9.]+ *- *[0-9.]+$', description: '10.1.3.200-10.1.3.250' }),
        },
        { additionalProperties: false },
      ),
      { default: [], maxItems: 1024 },
    ),
    /** Configurations ogserve replaced in Kea that are kept (POST /dhcp/restore). */
    backups: Type.Integer({ default: 10, minimum: 1, maximum: 1000 }),
    /** Inventory changes closer together than this are one change to Kea. */
    debounce_ms: Type.Integer({ default: 500, minimum: 0, maximum: 60000 }),
    /** The longest wait between two tries while Kea does not answer. */
    retry_max_ms: Type.Integer({ default: 30000, minimum: 100, maximum: 3600000 }),
  },
  { additionalProperties: false },
);

const Reservation = Type.Object({
  mac: Type.String({ description: 'aa:bb:cc:dd:ee:ff' }),
  ip: Type.String(),
  hostname: Type.String(),
  subnet: Type.String({ description: 'the subnet it is (or should be) in, 10.1.2.0/24' }),
});

const LastError = Type.Object({
  at: Type.String(),
  reason: Type.Union([Type.Literal('refused'), Type.Literal('unreachable')]),
  message: Type.String({ description: "Kea's words, or why it could not be reached" }),
});

export const DhcpStatus = Type.Object({
  control_agent: Type.String(),
  reachable: Type.Boolean({ description: 'the Control Agent and kea-dhcp4 answered config-get now' }),
  in_step: Type.Boolean({ description: "Kea's reservations and boot classes are the inventory's" }),
  pending: Type.Boolean({ description: 'changes wait to be sent (debounce, or Kea not answering)' }),
  pushes_here: Type.Boolean({ description: 'this instance is the one that pushes (of several)' }),
  last_push: Type.Union([
    Type.Object({
      at: Type.String(),
      changed: Type.Boolean(),
      backup: Type.Optional(Type.Integer()),
      write_error: Type.Optional(Type.String({ description: 'config-write refused: Kea runs the change, its file lacks it' })),
    }),
    Type.Null(),
  ]),
  last_error: Type.Union([LastError, Type.Null()]),
  differences: Type.Union([
    Type.Object({
      missing: Type.Array(Reservation),
      extra: Type.Array(Reservation),
      different: Type.Array(Type.Object({ mac: Type.String(), inventory: Reservation, kea: Reservation })),
    }),
    Type.Null(),
  ]),
});

export const SyncAnswer = Type.Object({
  changed: Type.Boolean({ description: 'a configuration was set (false: Kea was in step already)' }),
  backup: Type.Optional(Type.Integer({ description: 'the backup of the configuration replaced' })),
  leases_deleted: Type.Array(Type.String()),
});

export const BackupList = Type.Object({
  backups: Type.Array(
    Type.Object({
      id: Type.Integer(),
      taken_at: Type.String(),
      reason: Type.String({ description: 'sync or restore: what replaced it' }),
      subnets: Type.Integer(),
      reservations: Type.Integer(),
    }),
  ),
});

export const RestoreBody = Type.Object({ id: Type.Integer({ minimum: 1, description: 'a backup id of GET /dhcp/backups' }) });

export const RestoreAnswer = Type.Object({
  restored: Type.Integer(),
  backup: Type.Integer({ description: 'the backup of the configuration the restore replaced' }),
});
