import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { ImageState } from '../entities/image';

/** An image's file, or one of its companions, by name: `win10.img`, `win10@v3.img.full.sum`. */
export interface ImageFileName {
  name: string;
  /** A kept version (`@v3`); undefined for the image's current file. */
  version?: number;
  /** `.img`, `.img.full.sum`, `.img.sum` or `.img.torrent`. */
  suffix: string;
}

const fileName = /^([A-Za-z0-9._-]+?)(?:@v([1-9][0-9]{0,8}))?(\.img(?:\.full\.sum|\.sum|\.torrent)?)$/;

/** What a served file's name says: the image, its version and the kind of file; undefined for a name no image has. */
export function imageFileName(file: string): ImageFileName | undefined {
  const match = fileName.exec(file);
  if (!match) return undefined;
  return { name: match[1]!, ...(match[2] ? { version: Number(match[2]) } : {}), suffix: match[3]! };
}

/** What the record of a served image file says of it. */
export interface ServedRecord {
  image: number;
  name: string;
  sha256: string;
  size: bigint;
  state: ImageState;
  damage: string;
}

/** The record behind a file name: the image, or one of its kept versions; undefined when none has it. */
export type RecordLookup = (file: ImageFileName) => Promise<ServedRecord | undefined>;

/** `Repr-Digest` (RFC 9530) of a sha256 in hex: what a client checks the whole file against, a resumed one too. */
export function reprDigest(sha256: string): string {
  return `sha-256=:${Buffer.from(sha256, 'hex').toString('base64')}:`;
}

/**
 * The folder rules of the image files: an image whose record says it is damaged is not served,
 * nor one a create is writing, nor a file whose size is not its record's (a truncated file is
 * never sent as if whole); the image file carries its sha256 as `Repr-Digest`.
 */
export function servedFolder(dir: string, lookup: RecordLookup, beingWritten: (name: string) => boolean) {
  const recordOf = async (real: string) => {
    const parsed = imageFileName(path.basename(real));
    return parsed && { parsed, record: await lookup(parsed) };
  };
  return {
    dir,
    async refusal(real: string): Promise<string | undefined> {
      const found = await recordOf(real);
      if (!found?.record) return 'no image record names it';
      const { parsed, record } = found;
      if (parsed.version === undefined && beingWritten(record.name)) return `image '${record.name}' is being written by a create`;
      if (parsed.suffix !== '.img') return undefined;
      if (record.state === 'damaged') return `image '${record.name}' is damaged: ${record.damage}`;
      if (record.sha256 !== '' && record.size > 0n) {
        const size = BigInt((await stat(real)).size);
        if (size !== record.size) return `the file has ${size} bytes, its record ${record.size}`;
      }
      return undefined;
    },
    async headers(real: string): Promise<Record<string, string> | undefined> {
      const found = await recordOf(real);
      if (found?.parsed.suffix !== '.img' || !found.record?.sha256) return undefined;
      return { 'Repr-Digest': reprDigest(found.record.sha256) };
    },
  };
}
