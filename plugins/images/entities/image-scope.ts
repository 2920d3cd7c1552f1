import { EntitySchema } from '@mikro-orm/core';
import type { Image } from './image';

/**
 * A center an image is restricted to (POST /image/restrict). An image with no rows is
 * unrestricted; one with rows may be restored only on clients of those centers.
 */
export interface ImageScope {
  id: number;
  image: Image;
  centerId: number;
}

export const ImageScopeEntity = new EntitySchema<ImageScope>({
  name: 'ImageScope',
  tableName: 'image_scopes',
  uniques: [{ name: 'image_scopes_image_center_unique', properties: ['image', 'centerId'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    image: { kind: 'm:1', entity: 'Image', deleteRule: 'cascade' },
    centerId: { type: 'integer' },
  },
});
