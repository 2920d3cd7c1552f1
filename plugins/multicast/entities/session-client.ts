import { EntitySchema } from '@mikro-orm/core';

/**
 * A PC's part in a session: `expected` (sent the restore, not joined yet), `joined`, then
 * `done` (the whole stream reached it), `dropped` (udp-sender dropped it: `reason` says why,
 * 'timeout'), `missing` (it never joined before the stream started), `cancelled`, `failed`
 * (the stream stopped under it); `skipped` when it could not be sent the restore (busy, not
 * connected: `reason`).
 */
export const clientStates = ['expected', 'joined', 'done', 'dropped', 'missing', 'cancelled', 'failed', 'skipped'] as const;
export type ClientState = (typeof clientStates)[number];

/** A PC of a session. Times are milliseconds since 1970; `bytes` is how much of the stream reached it. */
export interface SessionClient {
  id: number;
  sessionId: number;
  /** The job of the restore that sent it (a PC that joined a running session has that request's job). */
  jobId: number | null;
  ip: string;
  state: ClientState;
  reason: string;
  /** udp-sender's Timeout lines naming it: how often it was slow to acknowledge a slice. */
  slow: number;
  bytes: number;
  joinedAt: number | null;
  endedAt: number | null;
}

export const SessionClientEntity = new EntitySchema<SessionClient>({
  name: 'MulticastSessionClient',
  tableName: 'multicast_session_clients',
  indexes: [
    { name: 'multicast_clients_session', properties: ['sessionId'] },
    { name: 'multicast_clients_ip', properties: ['ip'] },
  ],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    sessionId: { type: 'integer', fieldName: 'session_id' },
    jobId: { type: 'integer', fieldName: 'job_id', nullable: true },
    ip: { type: 'string', length: 15 },
    state: { type: 'string', length: 16 },
    reason: { type: 'text' },
    slow: { type: 'integer', default: 0 },
    bytes: { type: 'double', default: 0 },
    joinedAt: { type: 'double', fieldName: 'joined_at', nullable: true },
    endedAt: { type: 'double', fieldName: 'ended_at', nullable: true },
  },
});
