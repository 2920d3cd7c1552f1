import { type Static, Type } from '@sinclair/typebox';
import { Port } from 'ogserve';

/** The `tftp` config section. */
export const TftpConfig = Type.Object(
  {
    /** The address the TFTP server listens on. */
    ip: Type.String({ default: '0.0.0.0', format: 'ipv4' }),
    /** Its UDP port: 69, where PXE firmware asks (below 1024: root or CAP_NET_BIND_SERVICE). */
    port: Port({ default: 69 }),
    /** Transfers at once; a request beyond is dropped unanswered (the PC asks again). */
    max_transfers: Type.Integer({ default: 1000, minimum: 1, maximum: 20000 }),
    /** Requests one source address may make per minute (0 = no limit); beyond, dropped. */
    requests_per_minute: Type.Integer({ default: 120, minimum: 0 }),
    /** Milliseconds without an answer before a block is sent again, unless the PC asks another `timeout`. */
    timeout_ms: Type.Integer({ default: 1000, minimum: 100, maximum: 255000 }),
    /** Times a block is sent again before the transfer is given up. */
    retries: Type.Integer({ default: 5, minimum: 0, maximum: 100 }),
    /** The largest block a PC may ask for (1468 fills an Ethernet frame). */
    max_blksize: Type.Integer({ default: 1468, minimum: 512, maximum: 65464 }),
    /** The largest window (RFC 7440) a PC may ask for. */
    max_windowsize: Type.Integer({ default: 64, minimum: 1, maximum: 65535 }),
    /** Networks (CIDR, or single addresses) served; empty = every address. */
    allow: Type.Array(Type.String({ minLength: 1 }), { default: [], maxItems: 256 }),
    /** Files up to this size are read once and shared by every transfer of them. */
    shared_file_max_bytes: Type.Integer({ default: 64 * 1024 * 1024, minimum: 0 }),
  },
  { additionalProperties: false },
);

export type TftpSettings = Static<typeof TftpConfig>;
