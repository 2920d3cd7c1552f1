import { EntitySchema } from '@mikro-orm/core';
import { type Client, ClientEntity } from '../../inventory';

/**
 * One difference between two inventories of a client, as the history keeps it: only what
 * changed is written, so a client that reports the same thing every boot costs no row.
 * `kind` is `hardware` or `software`; `item` the component's type code (`mem`, `dis`) or
 * the package's name ('' for the OS line); `before` and `after` the component's text or the
 * package's version (null for what was not there). `at` is milliseconds since 1970 as a
 * decimal string (a 64-bit column); `alerts` the names of the rules it met, `,`-separated.
 * Rows go with their client (foreign key cascade).
 */
export interface HistoryChange {
  id: number;
  client: Client;
  at: string;
  kind: string;
  change: string;
  item: string;
  disk: number;
  partition: number;
  before: string | null;
  after: string | null;
  alerts: string;
}

export const HistoryChangeEntity = new EntitySchema<HistoryChange>({
  name: 'HistoryChange',
  tableName: 'client_history',
  indexes: [{ name: 'client_history_client_index', properties: ['client', 'id'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    client: { kind: 'm:1', entity: () => ClientEntity, deleteRule: 'cascade' },
    at: { type: 'bigint', index: 'client_history_at' },
    kind: { type: 'string', length: 8 },
    change: { type: 'string', length: 12 },
    item: { type: 'text' },
    disk: { type: 'integer', default: 0 },
    partition: { type: 'integer', fieldName: 'part_number', default: 0 },
    before: { type: 'text', nullable: true },
    after: { type: 'text', nullable: true },
    alerts: { type: 'text' },
  },
});
