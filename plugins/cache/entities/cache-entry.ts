import { EntitySchema } from '@mikro-orm/core';
import { type Client, ClientEntity } from '../../inventory';

/**
 * One image held in a client's cache partition, as its agent last reported it. Rows go
 * with their client (foreign key cascade). The size is a 64-bit column handled as a
 * decimal string so that nothing past 2^53 is rounded.
 */
export interface CacheEntry {
  id: number;
  client: Client;
  name: string;
  size: string;
  checksum: string;
}

export const CacheEntryEntity = new EntitySchema<CacheEntry>({
  name: 'CacheEntry',
  tableName: 'cache_entries',
  uniques: [{ name: 'cache_entries_client_name_unique', properties: ['client', 'name'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    client: { kind: 'm:1', entity: () => ClientEntity, deleteRule: 'cascade' },
    name: { type: 'string', length: 255 },
    size: { type: 'bigint', default: 0 },
    checksum: { type: 'string', length: 128, default: '' },
  },
});
