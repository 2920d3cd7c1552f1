import { EntitySchema } from '@mikro-orm/core';
import { type Client, ClientEntity } from '../../inventory';

/**
 * A PC's time in each state by 00:00 UTC of `day` (days since 1970), as its power states
 * say: the reading a report starting or ending at that midnight takes in one pass over the
 * day's rows instead of a seek per PC. Written once a day by one instance; rows go with
 * their client (foreign key cascade) and with the retention.
 */
export interface PowerDay {
  id: number;
  client: Client;
  day: number;
  offMs: number;
  idleMs: number;
  sessionMs: number;
  busyMs: number;
}

export const PowerDayEntity = new EntitySchema<PowerDay>({
  name: 'PowerDay',
  tableName: 'power_days',
  indexes: [{ name: 'power_days_day_client', properties: ['day', 'client'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    client: { kind: 'm:1', entity: () => ClientEntity, deleteRule: 'cascade', index: 'power_days_client' },
    day: { type: 'integer' },
    offMs: { type: 'double', fieldName: 'off_ms' },
    idleMs: { type: 'double', fieldName: 'idle_ms' },
    sessionMs: { type: 'double', fieldName: 'session_ms' },
    busyMs: { type: 'double', fieldName: 'busy_ms' },
  },
});
