import { EntitySchema } from '@mikro-orm/core';
import type { Center } from './center';
import type { RoomFolder } from './folder';

export interface Room {
  id: number;
  name: string;
  center: Center;
  folder?: RoomFolder | null;
  netmask: string;
  gateway: string;
  location: string;
  ntp: string;
  dns: string;
  remote: boolean;
}

export const RoomEntity = new EntitySchema<Room>({
  name: 'Room',
  tableName: 'rooms',
  uniques: [{ name: 'rooms_center_name_unique', properties: ['center', 'name'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    name: { type: 'string', length: 100 },
    center: { kind: 'm:1', entity: 'Center', deleteRule: 'cascade' },
    folder: { kind: 'm:1', entity: 'RoomFolder', nullable: true, deleteRule: 'cascade' },
    netmask: { type: 'string', length: 15 },
    gateway: { type: 'string', length: 15, default: '' },
    location: { type: 'string', length: 255, default: '' },
    ntp: { type: 'string', length: 64, default: '' },
    dns: { type: 'string', length: 64, default: '' },
    remote: { type: 'boolean', default: false },
  },
});
