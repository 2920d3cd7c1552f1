import type { Database, PluginEvents } from 'ogserve';
import type { TimelineEntry } from '../history';

interface Row {
  state: string;
  started_at: number | string;
  ended_at: number | string | null;
}

interface SessionRow {
  action: string;
  user_name: string;
  os: string;
  at: number | string;
}

/**
 * Answer the timeline's question (the history plugin asks; neither requires the other) from
 * one table: `sql` takes the client's id, `before` and `limit`, newest first.
 */
function answerTimeline<R>(
  events: Pick<PluginEvents, 'on'>,
  db: Database,
  sql: string,
  entryOf: (row: R) => TimelineEntry,
  what: string,
): void {
  events.on(
    'client.timeline',
    async (question) => {
      const rows = await db.query<R>(sql, [question.client.id, question.before, question.limit]);
      question.add(rows.map(entryOf));
    },
    what,
  );
}

/** The energy plugin's part of a PC's timeline: each stretch in a power state (off, idle, a user's session, busy) with its end. */
export function powerStatesTimeline(events: Pick<PluginEvents, 'on'>, db: Database): void {
  answerTimeline<Row>(
    events,
    db,
    'select state, started_at, ended_at from power_states where client_id = ? and started_at < ? order by started_at desc limit ?',
    (row) => ({
      time: new Date(Number(row.started_at)).toISOString(),
      kind: 'power',
      summary: `power state ${row.state}`,
      who: null,
      source: null,
      state: row.state,
      job: null,
      data: { state: row.state, ended: row.ended_at === null ? null : new Date(Number(row.ended_at)).toISOString() },
    }),
    "add the PC's power states to its timeline",
  );
}

/** The sign-ins and sign-outs on the PC, with the user's name as who. */
export function sessionsTimeline(events: Pick<PluginEvents, 'on'>, db: Database): void {
  answerTimeline<SessionRow>(
    events,
    db,
    'select action, user_name, os, at from user_sessions where client_id = ? and at < ? order by at desc limit ?',
    (row) => ({
      time: new Date(Number(row.at)).toISOString(),
      kind: 'session',
      summary: `${row.user_name} signed ${row.action === 'start' ? 'in' : 'out'}`,
      who: row.user_name,
      source: 'session',
      state: row.action,
      job: null,
      data: { action: row.action, user: row.user_name, os: row.os },
    }),
    "add the PC's sign-ins and sign-outs to its timeline",
  );
}
