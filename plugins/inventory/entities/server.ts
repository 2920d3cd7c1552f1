import { EntitySchema } from '@mikro-orm/core';

/** A management server address clients are told to use (the reference's `entornos`). */
export interface Server {
  id: number;
  ip: string;
  port: number;
}

export const ServerEntity = new EntitySchema<Server>({
  name: 'Server',
  tableName: 'servers',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    ip: { type: 'string', length: 15, unique: 'servers_ip_unique' },
    port: { type: 'integer', default: 2008 },
  },
});
