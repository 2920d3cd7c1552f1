import { EntitySchema } from '@mikro-orm/core';
import { type Client, ClientEntity } from '../../inventory';

/**
 * A user signing in to a PC (`start`) or out (`stop`), as its agent reported it: a row per
 * event, for the PC's timeline; the time in sessions is the power states'. `at` is
 * milliseconds since 1970. Rows go with their client (foreign key cascade) and with the
 * retention of the power states.
 */
export interface UserSessionRow {
  id: number;
  client: Client;
  action: 'start' | 'stop';
  user: string;
  os: string;
  at: number;
}

export const UserSessionEntity = new EntitySchema<UserSessionRow>({
  name: 'UserSession',
  tableName: 'user_sessions',
  indexes: [{ name: 'user_sessions_client_at', properties: ['client', 'at'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    client: { kind: 'm:1', entity: () => ClientEntity, deleteRule: 'cascade', index: false },
    action: { type: 'string', length: 8 },
    user: { type: 'string', length: 256, fieldName: 'user_name' },
    os: { type: 'string', length: 16 },
    at: { type: 'double' },
  },
});
