import { type Static, Type } from '@sinclair/typebox';

/** A mode name as pxe-modes offers them: safe to join into a template file name. */
export const modeName = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/;

/** The `boot` config section. */
export const BootConfig = Type.Object(
  {
    /** iPXE templates, one `<mode>.ejs` per mode; bundled ones unless a site file sets it. */
    templates_dir: Type.String({ default: 'templates/ipxe', path: 'install' }),
    /**
     * The iPXE template a MAC the inventory does not know gets (a mode name, `local`, or
     * `discover`: the live image for the enrol plugin), or one per network its request comes
     * from: `{"10.1.3.0/24": "discover", "*": "local"}`.
     */
    unknown_client: Type.Union(
      [
        Type.String({ pattern: modeName.source }),
        Type.Record(Type.String({ pattern: '^([0-9.]+/[0-9]{1,2}|[*])$' }), Type.String({ pattern: modeName.source }), {
          maxProperties: 1024,
        }),
      ],
      {
        default: 'local',
        expected: 'a mode name such as local, ogLive or discover, or networks to mode names ({"10.1.3.0/24": "discover", "*": "local"})',
      },
    ),
    /** How PCs reach this server (http://10.0.2.100); '' = http://<rest address>:<rest.port>. */
    public_url: Type.Union([Type.String({ pattern: '^https?://[^/\\s?#]+(/[^\\s?#]*)?$' }), Type.Literal('')], {
      default: '',
      expected: 'an http:// or https:// URL without query, or empty for the REST address',
    }),
    /** A site's folder of other boot files (GRUB images...), served after `live.directory`. */
    extra_dir: Type.Optional(Type.String({ path: true })),
    /** A folder holding the first stages (undionly.kpxe, snponly.efi, shimx64.efi, grubx64.efi...) instead of Debian's places. */
    loaders_dir: Type.Optional(Type.String({ path: true })),
    /** Where the first stages found are copied to be served (at /boot/files/ and over TFTP). */
    loaders_served_dir: Type.String({ default: 'boot-loaders', path: true }),
    /** File transfers at once; beyond, 503 with Retry-After (iPXE tries again). */
    max_transfers: Type.Integer({ default: 100, minimum: 1 }),
    /** Seconds a transfer may go without a byte taken before it is cut, freeing its place for another PC. */
    stall_s: Type.Number({ default: 30, exclusiveMinimum: 0, maximum: 3600 }),
    /** Seconds between the log lines that sum up refused requests (503 busy, 429 too many scripts), never one line each. */
    refusals_log_s: Type.Number({ default: 60, exclusiveMinimum: 0, maximum: 86400 }),
    /** Networks (CIDR, or single addresses) files are served to; empty = every address. */
    allow: Type.Array(Type.String({ minLength: 1 }), { default: [], maxItems: 256 }),
    /** Scripts one source address may fetch per minute (0 = no limit). */
    scripts_per_minute: Type.Integer({ default: 60, minimum: 0 }),
    /** Boots kept per PC in its timeline (GET /boot/timeline). */
    timeline_boots: Type.Integer({ default: 10, minimum: 1, maximum: 100 }),
    /** Seconds a one-shot boot (POST /boot/next) lasts at most when its request names no timeout_s. */
    next_timeout_s: Type.Integer({ default: 3600, minimum: 1, maximum: 604800 }),
  },
  { additionalProperties: false },
);

export type BootSettings = Static<typeof BootConfig>;
