import { EntitySchema } from '@mikro-orm/core';

/**
 * A deleted image kept for `repository.trash_days`: its record and its versions' as they
 * were (JSON), its files under `<repository>/.trash/<id>/`. POST /image/recover puts both back.
 */
export interface ImageTrash {
  id: number;
  /** The id the image had. */
  imageId: number;
  name: string;
  /** The image's record, and `versions`, as JSON. */
  record: string;
  /** Bytes of its files. */
  bytes: string;
  /** When it was deleted, seconds since 1970. */
  trashedAt: string;
}

export const ImageTrashEntity = new EntitySchema<ImageTrash>({
  name: 'ImageTrash',
  tableName: 'image_trash',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    imageId: { type: 'integer', index: true },
    name: { type: 'string', length: 50 },
    record: { type: 'text' },
    bytes: { type: 'bigint', default: 0 },
    trashedAt: { type: 'bigint', default: 0 },
  },
});
