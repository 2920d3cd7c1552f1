import { EntitySchema } from '@mikro-orm/core';
import { type Client, ClientEntity } from '../../inventory';

/**
 * A client's hardware inventory as its agent last reported it: one row per component,
 * keyed by the reference's 3-letter type code. Rows go with the client (cascade).
 */
export interface HardwareItem {
  id: number;
  client: Client;
  type: string;
  description: string;
  position: number;
}

export const HardwareItemEntity = new EntitySchema<HardwareItem>({
  name: 'HardwareItem',
  tableName: 'client_hardware',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    client: { kind: 'm:1', entity: () => ClientEntity, deleteRule: 'cascade' },
    type: { type: 'string', length: 3 },
    description: { type: 'text' },
    position: { type: 'integer' },
  },
});
