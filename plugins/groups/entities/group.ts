import { EntitySchema } from '@mikro-orm/core';

/**
 * A saved group: a name and a filter of the fleet (schemas.ts `GroupFilter`, stored as JSON
 * and read whole). Its PCs are never stored: they are found from the filter each time the
 * group is used, so a PC added to a room the filter names is in the group from then on.
 */
export interface Group {
  id: number;
  name: string;
  filter: string;
}

export const GroupEntity = new EntitySchema<Group>({
  name: 'FleetGroup',
  tableName: 'fleet_groups',
  uniques: [{ name: 'fleet_groups_name', properties: ['name'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    name: { type: 'string', length: 100 },
    filter: { type: 'text' },
  },
});
