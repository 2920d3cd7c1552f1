import type { Database, PluginEvents } from 'ogserve';
import type { TimelineEntry } from '../history';

interface Row {
  state: string;
  started_at: number | string;
  ended_at: number | string | null;
}

/**
 * The energy plugin's part of a PC's timeline (the history plugin asks; neither requires the
 * other): each stretch in a power state (off, idle, a user's session, busy) with its end.
 */
export function powerStatesTimeline(events: Pick<PluginEvents, 'on'>, db: Database): void {
  events.on(
    'client.timeline',
    async (question) => {
      const rows = await db.query<Row>(
        'select state, started_at, ended_at from power_states where client_id = ? and started_at < ? order by started_at desc limit ?',
        [question.client.id, question.before, question.limit],
      );
      question.add(
        rows.map(
          (row): TimelineEntry => ({
            time: new Date(Number(row.started_at)).toISOString(),
            kind: 'power',
            summary: `power state ${row.state}`,
            who: null,
            source: null,
            state: row.state,
            job: null,
            data: { state: row.state, ended: row.ended_at === null ? null : new Date(Number(row.ended_at)).toISOString() },
          }),
        ),
      );
    },
    "add the PC's power states to its timeline",
  );
}

interface SessionRow {
  action: string;
  user_name: string;
  os: string;
  at: number | string;
}

/** The sign-ins and sign-outs on the PC, with the user's name as who. */
export function sessionsTimeline(events: Pick<PluginEvents, 'on'>, db: Database): void {
  events.on(
    'client.timeline',
    async (question) => {
      const rows = await db.query<SessionRow>(
        'select action, user_name, os, at from user_sessions where client_id = ? and at < ? order by at desc limit ?',
        [question.client.id, question.before, question.limit],
      );
      question.add(
        rows.map(
          (row): TimelineEntry => ({
            time: new Date(Number(row.at)).toISOString(),
            kind: 'session',
            summary: `${row.user_name} signed ${row.action === 'start' ? 'in' : 'out'}`,
            who: row.user_name,
            source: 'session',
            state: row.action,
            job: null,
            data: { action: row.action, user: row.user_name, os: row.os },
          }),
        ),
      );
    },
    "add the PC's sign-ins and sign-outs to its timeline",
  );
}
