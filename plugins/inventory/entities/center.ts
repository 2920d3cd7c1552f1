import { EntitySchema } from '@mikro-orm/core';

export interface Center {
  id: number;
  name: string;
  comment: string;
}

export const CenterEntity = new EntitySchema<Center>({
  name: 'Center',
  tableName: 'centers',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    name: { type: 'string', length: 100, unique: 'centers_name_unique' },
    comment: { type: 'text', default: '' },
  },
});
