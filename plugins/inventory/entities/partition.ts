import { EntitySchema } from '@mikro-orm/core';
import type { Client } from './client';

/**
 * A client's disks and partitions as its agent last reported them; partition 0 is the
 * whole disk. Sizes are bytes in 64-bit columns, read back as strings so that nothing
 * beyond 2^53 loses precision.
 */
export interface Partition {
  id: number;
  client: Client;
  disk: number;
  partition: number;
  diskType: string;
  code: number;
  size: string;
  usedSize: string;
  freeSize: string;
  filesystem: string;
  os: string;
  image: number;
  software: number;
}

export const PartitionEntity = new EntitySchema<Partition>({
  name: 'Partition',
  tableName: 'partitions',
  uniques: [{ name: 'partitions_client_disk_partition_unique', properties: ['client', 'disk', 'partition'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    client: { kind: 'm:1', entity: 'Client', deleteRule: 'cascade' },
    disk: { type: 'integer' },
    partition: { type: 'integer', fieldName: 'part_number' },
    diskType: { type: 'string', length: 32, default: '' },
    code: { type: 'integer', default: 0 },
    size: { type: 'bigint', default: 0 },
    usedSize: { type: 'bigint', default: 0 },
    freeSize: { type: 'bigint', default: 0 },
    filesystem: { type: 'string', length: 32, default: '' },
    os: { type: 'string', length: 128, default: '' },
    image: { type: 'integer', default: 0 },
    software: { type: 'integer', default: 0 },
  },
});
