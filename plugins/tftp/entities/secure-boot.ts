import { EntitySchema } from '@mikro-orm/core';
import { type Client, ClientEntity, type Room, RoomEntity } from '../../inventory';

/** A room whose UEFI PCs boot the Secure Boot chain (shim, then GRUB). Goes with its room. */
export interface SecureBootRoom {
  id: number;
  room: Room;
}

/** A PC's own Secure Boot setting, over its room's: on, or off in a room where it is on. Goes with its PC. */
export interface SecureBootClient {
  id: number;
  client: Client;
  secureBoot: boolean;
}

export const SecureBootRoomEntity = new EntitySchema<SecureBootRoom>({
  name: 'SecureBootRoom',
  tableName: 'tftp_secure_boot_rooms',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    room: { kind: 'm:1', entity: () => RoomEntity, deleteRule: 'cascade', unique: 'tftp_secure_boot_rooms_room_unique' },
  },
});

export const SecureBootClientEntity = new EntitySchema<SecureBootClient>({
  name: 'SecureBootClient',
  tableName: 'tftp_secure_boot_clients',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    client: { kind: 'm:1', entity: () => ClientEntity, deleteRule: 'cascade', unique: 'tftp_secure_boot_clients_client_unique' },
    secureBoot: { type: 'boolean' },
  },
});
