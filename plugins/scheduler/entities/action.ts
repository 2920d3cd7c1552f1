import { EntitySchema } from '@mikro-orm/core';
import { type Client, ClientEntity } from '../../inventory';

/**
 * Lifecycle of a queued command: `waiting` for its schedule to fire, `queued` for its
 * client, `sent` to the agent, `done` with a result.
 */
export type ActionState = 'waiting' | 'queued' | 'sent' | 'done';
export type ActionResult = '' | 'success' | 'failure';

/** One command for one client (the reference's `acciones` row). */
export interface Action {
  id: number;
  client: Client;
  ip: string;
  /** Shared by every action of one expansion: the id of its first action. */
  session: number;
  command: string;
  /** JSON params of the command. */
  params: string;
  state: ActionState;
  result: ActionResult;
  /** Why it failed, when it did ("expired", "agent answered 500"...). */
  note: string;
  /** When it entered the client's queue (ms since 1970); the expiry counts from here. */
  queuedAt?: number | null;
  finishedAt?: number | null;
  taskId: number;
  procedureId: number;
  scheduleId: number;
}

export const ActionEntity = new EntitySchema<Action>({
  name: 'Action',
  tableName: 'actions',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    client: { kind: 'm:1', entity: () => ClientEntity, deleteRule: 'cascade' },
    ip: { type: 'string', length: 15 },
    session: { type: 'integer', fieldName: 'session_id', default: 0 },
    command: { type: 'string', length: 32 },
    params: { type: 'text' },
    state: { type: 'string', length: 16 },
    result: { type: 'string', length: 16, default: '' },
    note: { type: 'string', length: 200, default: '' },
    queuedAt: { type: 'double', nullable: true },
    finishedAt: { type: 'double', nullable: true },
    taskId: { type: 'integer', default: 0 },
    procedureId: { type: 'integer', default: 0 },
    scheduleId: { type: 'integer', default: 0 },
  },
});
