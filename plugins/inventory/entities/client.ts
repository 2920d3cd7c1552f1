import { EntitySchema, type Opt } from '@mikro-orm/core';
import type { ComputerFolder } from './folder';
import type { Repository } from './repository';
import type { Room } from './room';
import type { Server } from './server';

/** A managed PC. Agents are matched to it by IP; MAC and IP are unique. `Opt`: a column with a default, optional when a row is created. */
export interface Client {
  id: number;
  name: Opt<string>;
  serialNumber: Opt<string>;
  ip: string;
  mac: string;
  room: Room;
  folder?: ComputerFolder | null;
  hardwareId: Opt<number>;
  repository?: Repository | null;
  server?: Server | null;
  netmask: Opt<string>;
  boot: string;
  netiface: Opt<string>;
  netdriver: Opt<string>;
  livedir: string;
  remote: Opt<boolean>;
  maintenance: Opt<boolean>;
}

export const ClientEntity = new EntitySchema<Client>({
  name: 'Client',
  tableName: 'clients',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    name: { type: 'string', length: 100, default: '' },
    serialNumber: { type: 'string', length: 64, default: '' },
    ip: { type: 'string', length: 15, unique: 'clients_ip_unique' },
    mac: { type: 'string', length: 12, unique: 'clients_mac_unique' },
    room: { kind: 'm:1', entity: 'Room', deleteRule: 'cascade' },
    folder: { kind: 'm:1', entity: 'ComputerFolder', nullable: true, deleteRule: 'cascade' },
    hardwareId: { type: 'integer', default: 0 },
    repository: { kind: 'm:1', entity: 'Repository', nullable: true, deleteRule: 'set null' },
    server: { kind: 'm:1', entity: 'Server', nullable: true, deleteRule: 'set null' },
    netmask: { type: 'string', length: 15, default: '' },
    boot: { type: 'string', length: 64, default: '' },
    netiface: { type: 'string', length: 16, default: '' },
    netdriver: { type: 'string', length: 64, default: '' },
    livedir: { type: 'string', length: 64, default: '' },
    remote: { type: 'boolean', default: false },
    maintenance: { type: 'boolean', default: false },
  },
});
