import { EntitySchema } from '@mikro-orm/core';
import type { ImageState } from './image';

/**
 * A version of an image kept when the image was created again (`repository.keep_versions`):
 * the file it had, `<name>@v<version>.img` beside the image's own, and what its record said
 * of it. `version` is the image's revision that file was; restorable by it.
 */
export interface ImageVersion {
  id: number;
  imageId: number;
  version: number;
  size: string;
  datasize: string;
  /** The agent's md5 of the file. */
  checksum: string;
  sha256: string;
  state: ImageState;
  damage: string;
  checkedAt: string;
  /** When the agent wrote the file, seconds since 1970. */
  lastUpdate: string;
  /** When it was kept (moved aside for a new create), seconds since 1970. */
  keptAt: string;
  clonator: string;
  compressor: string;
  filesystem: string;
}

export const ImageVersionEntity = new EntitySchema<ImageVersion>({
  name: 'ImageVersion',
  tableName: 'image_versions',
  uniques: [{ name: 'image_versions_image_version_unique', properties: ['imageId', 'version'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    imageId: { type: 'integer' },
    version: { type: 'integer' },
    size: { type: 'bigint', default: 0 },
    datasize: { type: 'bigint', default: 0 },
    checksum: { type: 'string', length: 128, default: '' },
    sha256: { type: 'string', length: 64, default: '' },
    state: { type: 'string', length: 16, fieldName: 'file_state', default: 'available' },
    damage: { type: 'string', length: 250, default: '' },
    checkedAt: { type: 'bigint', default: 0 },
    lastUpdate: { type: 'bigint', default: 0 },
    keptAt: { type: 'bigint', default: 0 },
    clonator: { type: 'string', length: 64, default: '' },
    compressor: { type: 'string', length: 64, default: '' },
    filesystem: { type: 'string', length: 64, default: '' },
  },
});
