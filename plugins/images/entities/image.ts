import { EntitySchema } from '@mikro-orm/core';

/**
 * A disk image held by a repository. The name is unique: it is also the file name
 * (`<name>.img`) and what an agent's answer is matched on, so a late or repeated answer
 * refreshes the record instead of adding a second one. Sizes and the last-update time
 * are 64-bit columns, handled as decimal strings so that nothing past 2^53 is rounded.
 */
export interface Image {
  id: number;
  name: string;
  description: string;
  /** Bytes of the image file. */
  size: string;
  /** Bytes of data the image holds (the partition's used space). */
  datasize: string;
  checksum: string;
  /** Octal permission digits of the image file, e.g. "644". */
  permissions: string;
  /** When the agent last wrote the image file, seconds since 1970. */
  lastUpdate: string;
  softwareId: number;
  type: number;
  /** The repository holding the image; its address is looked up when listed. */
  repositoryId: number;
  centerId: number;
  groupId: number;
  /** Where the image was taken from: client id (0 = unknown), disk, partition and its type code. */
  clientId: number;
  disk: number;
  partition: number;
  code: number;
  clonator: string;
  compressor: string;
  filesystem: string;
  /** Times the image was created or refreshed by an agent. */
  revision: number;
  /** The sha256 ogserve computed of the file (hex); '' until it has hashed it (or the file is not held here). */
  sha256: string;
  /** `available`, `hashing` (being hashed after a create), or `damaged` (restores refused). */
  state: ImageState;
  /** Why it is damaged (`missing`, `truncated: ...`, `changed: ...`); '' otherwise. */
  damage: string;
  /** When ogserve last hashed and checked the file, seconds since 1970 (0: never). */
  checkedAt: string;
}

/** What ogserve knows of an image's file: see Image.state. */
export type ImageState = 'available' | 'hashing' | 'damaged';

/** Image type of the reference's `imagenes.tipo`: a monolithic image. */
export const MONOLITHIC = 1;

export const ImageEntity = new EntitySchema<Image>({
  name: 'Image',
  tableName: 'images',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    name: { type: 'string', length: 50, unique: 'images_name_unique' },
    description: { type: 'string', length: 250, default: '' },
    size: { type: 'bigint', default: 0 },
    datasize: { type: 'bigint', default: 0 },
    checksum: { type: 'string', length: 128, default: '' },
    permissions: { type: 'string', length: 8, default: '0' },
    lastUpdate: { type: 'bigint', default: 0 },
    softwareId: { type: 'integer', default: 0 },
    type: { type: 'integer', fieldName: 'image_type', default: MONOLITHIC },
    repositoryId: { type: 'integer', default: 0 },
    centerId: { type: 'integer', default: 0 },
    groupId: { type: 'integer', default: 0 },
    clientId: { type: 'integer', default: 0 },
    disk: { type: 'integer', default: 0 },
    partition: { type: 'integer', fieldName: 'part_number', default: 0 },
    code: { type: 'integer', default: 0 },
    clonator: { type: 'string', length: 64, default: '' },
    compressor: { type: 'string', length: 64, default: '' },
    filesystem: { type: 'string', length: 64, default: '' },
    revision: { type: 'integer', default: 0 },
    sha256: { type: 'string', length: 64, default: '' },
    state: { type: 'string', length: 16, fieldName: 'file_state', default: 'available' },
    damage: { type: 'string', length: 250, default: '' },
    checkedAt: { type: 'bigint', default: 0 },
  },
});
