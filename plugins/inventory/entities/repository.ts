import { EntitySchema } from '@mikro-orm/core';

/** An image repository; it may answer on several addresses, none shared with another repository. */
export interface Repository {
  id: number;
  name: string;
  center: number;
}

export interface RepositoryAddress {
  id: number;
  repository: Repository;
  ip: string;
}

export const RepositoryEntity = new EntitySchema<Repository>({
  name: 'Repository',
  tableName: 'repositories',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    name: { type: 'string', length: 100 },
    center: { type: 'integer', default: 1 },
  },
});

export const RepositoryAddressEntity = new EntitySchema<RepositoryAddress>({
  name: 'RepositoryAddress',
  tableName: 'repository_addresses',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    repository: { kind: 'm:1', entity: 'Repository', deleteRule: 'cascade' },
    ip: { type: 'string', length: 15, unique: 'repository_addresses_ip_unique' },
  },
});
