import { EntitySchema } from '@mikro-orm/core';
import { type Client, ClientEntity } from '../../inventory';

/**
 * The software inventory of one partition of a client, as its agent last reported it.
 * Position 0 is the operating system line the agent sends first; the rest are packages.
 * Rows go with the client (cascade).
 */
export interface SoftwareItem {
  id: number;
  client: Client;
  disk: number;
  partition: number;
  position: number;
  name: string;
}

export const SoftwareItemEntity = new EntitySchema<SoftwareItem>({
  name: 'SoftwareItem',
  tableName: 'client_software',
  indexes: [{ name: 'client_software_partition_index', properties: ['client', 'disk', 'partition'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    client: { kind: 'm:1', entity: () => ClientEntity, deleteRule: 'cascade' },
    disk: { type: 'integer' },
    partition: { type: 'integer', fieldName: 'part_number' },
    position: { type: 'integer' },
    name: { type: 'text' },
  },
});
