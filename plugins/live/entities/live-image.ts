import { EntitySchema } from '@mikro-orm/core';

/** A live image added through POST /live/add (those found in the live directory need no row). */
export interface LiveImage {
  id: number;
  directory: string;
  distribution: string;
  kernel: string;
  architecture: string;
  revision: string;
  iso: string;
}

export const LiveImageEntity = new EntitySchema<LiveImage>({
  name: 'LiveImage',
  tableName: 'live_images',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    directory: { type: 'string', length: 64, unique: 'live_images_directory_unique' },
    distribution: { type: 'string', length: 64, default: '' },
    kernel: { type: 'string', length: 64, default: '' },
    architecture: { type: 'string', length: 16, default: '' },
    revision: { type: 'string', length: 64, default: '' },
    iso: { type: 'string', length: 255, default: '' },
  },
});
