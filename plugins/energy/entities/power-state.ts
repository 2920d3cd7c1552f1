import { EntitySchema } from '@mikro-orm/core';
import { type Client, ClientEntity } from '../../inventory';
import type { PowerState } from '../states';

/**
 * One stretch of a PC in one power state: a row per change, never per minute. `startedAt`
 * and `endedAt` are milliseconds since 1970; `endedAt` is null while it lasts. The four
 * `*Ms` columns are the PC's time in each state before `startedAt` (since its first row), so
 * that its time in any range is two readings subtracted, whatever the rows between them: a
 * report over 90 days reads two rows per PC. A time the server was not running falls between
 * two rows and counts in no state. Rows go with their client (foreign key cascade). One
 * index, by client and start: every reading, the pruning and the stop seek through it.
 */
export interface PowerStateRow {
  id: number;
  client: Client;
  state: PowerState;
  startedAt: number;
  endedAt: number | null;
  offMs: number;
  idleMs: number;
  sessionMs: number;
  busyMs: number;
}

export const PowerStateEntity = new EntitySchema<PowerStateRow>({
  name: 'PowerState',
  tableName: 'power_states',
  indexes: [{ name: 'power_states_client_started', properties: ['client', 'startedAt'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    client: { kind: 'm:1', entity: () => ClientEntity, deleteRule: 'cascade', index: false },
    state: { type: 'string', length: 8 },
    startedAt: { type: 'double', fieldName: 'started_at' },
    endedAt: { type: 'double', fieldName: 'ended_at', nullable: true },
    offMs: { type: 'double', fieldName: 'off_ms' },
    idleMs: { type: 'double', fieldName: 'idle_ms' },
    sessionMs: { type: 'double', fieldName: 'session_ms' },
    busyMs: { type: 'double', fieldName: 'busy_ms' },
  },
});
