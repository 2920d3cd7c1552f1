import { EntitySchema } from '@mikro-orm/core';
import type { Center } from './center';
import type { Room } from './room';

/**
 * Two folder kinds, as the reference keeps them: room folders group rooms inside a center,
 * computer folders group clients inside a room. Both may nest. Deleting a folder deletes
 * what it holds (database cascades).
 */
export interface RoomFolder {
  id: number;
  name: string;
  center: Center;
  parent?: RoomFolder | null;
}

export interface ComputerFolder {
  id: number;
  name: string;
  room: Room;
  parent?: ComputerFolder | null;
}

export const RoomFolderEntity = new EntitySchema<RoomFolder>({
  name: 'RoomFolder',
  tableName: 'room_folders',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    name: { type: 'string', length: 100 },
    center: { kind: 'm:1', entity: 'Center', deleteRule: 'cascade' },
    parent: { kind: 'm:1', entity: 'RoomFolder', nullable: true, deleteRule: 'cascade' },
  },
});

export const ComputerFolderEntity = new EntitySchema<ComputerFolder>({
  name: 'ComputerFolder',
  tableName: 'computer_folders',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    name: { type: 'string', length: 100 },
    room: { kind: 'm:1', entity: 'Room', deleteRule: 'cascade' },
    parent: { kind: 'm:1', entity: 'ComputerFolder', nullable: true, deleteRule: 'cascade' },
  },
});
