import type { EntityManager } from '@mikro-orm/core';
import type { Database } from 'ogserve';
import { ErrorCode, badRequest, positive } from 'ogserve';
import { type SessionClient, SessionClientEntity } from './entities/session-client';
import { type Session, SessionEntity, type SessionState, sessionStates } from './entities/session';
import { type LiveSession, countStates } from './sessions';

export interface SessionsQuery {
  state?: SessionState;
  image?: number;
  room?: number;
  job?: number;
  before?: number;
  limit: number;
}

/** `?state=&image=&room=&job=&before=&limit=`, each checked, a bad one a 400 naming it. */
export function parseSessionsQuery(query: URLSearchParams): SessionsQuery {
  const out: SessionsQuery = { limit: 50 };
  const state = query.get('state');
  if (state !== null) {
    if (!(sessionStates as readonly string[]).includes(state))
      throw badRequest(ErrorCode.invalidField, `state: one of ${sessionStates.join(', ')}`, 'state');
    out.state = state as SessionState;
  }
  for (const key of ['image', 'room', 'job', 'before'] as const) {
    const value = query.get(key);
    if (value !== null) out[key] = positive(value, key);
  }
  const limit = query.get('limit');
  if (limit !== null) out.limit = Math.min(positive(limit, 'limit'), 500);
  return out;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

type ClientLine = Pick<SessionClient, 'ip' | 'state' | 'reason' | 'bytes' | 'slow' | 'joinedAt' | 'endedAt' | 'jobId'>;

/** A session as answered: from its row and PCs, or from memory while this instance runs it (fresher than its row). */
function shown(row: Session, lines: ClientLine[], live: LiveSession | undefined) {
  const run = live?.run;
  const clients: ClientLine[] = run ? [...run.clients.values()] : lines;
  return {
    id: row.id,
    image: { id: row.imageId, name: row.imageName },
    room: { id: row.roomId, name: row.roomName },
    job: live?.row.jobId ?? row.jobId,
    state: run?.state ?? row.state,
    reason: run?.reason ?? row.reason,
    port: row.port,
    address: row.address,
    interface: run?.device || row.device,
    min_receivers: live?.row.minReceivers ?? row.minReceivers,
    expected: clients.filter((c) => c.state !== 'skipped').length,
    joined: clients.filter((c) => c.joinedAt !== null).length,
    size: row.size,
    bytes: run?.bytes ?? row.bytes,
    retransmits: run?.retransmits ?? row.retransmits,
    rate: Math.round(run?.rate ?? row.rate),
    who: row.who,
    created: new Date(row.createdAt).toISOString(),
    started: iso(run?.startedAt ?? row.startedAt),
    finished: iso(run?.finishedAt ?? row.finishedAt),
    states: countStates(clients),
    clients: clients.map((c) => ({
      addr: c.ip,
      state: c.state,
      reason: c.reason,
      // A PC still in a stream another instance runs has what the stream has.
      bytes: c.state === 'joined' && !run ? row.bytes : c.bytes,
      slow: c.slow,
      joined: iso(c.joinedAt),
      ended: iso(c.endedAt),
      job: c.jobId,
    })),
  };
}

export type SessionView = ReturnType<typeof shown>;

/** Sessions newest first, each with the PCs `visible` lets the caller see (none: not listed). */
export async function listSessions(
  db: Database,
  q: SessionsQuery,
  running: (id: number) => LiveSession | undefined,
  visible?: ReadonlySet<string>,
  given?: EntityManager,
): Promise<{ sessions: Omit<SessionView, 'clients'>[]; next: number | null }> {
  const em = db.unit(given);
  const where: Record<string, unknown> = {};
  if (q.state) where.state = q.state;
  if (q.image) where.imageId = q.image;
  if (q.room) where.roomId = q.room;
  if (q.job) where.jobId = q.job;
  if (q.before) where.id = { $lt: q.before };
  const rows = await em.find(SessionEntity, where, { orderBy: { id: 'desc' }, limit: q.limit + 1, refresh: true });
  const page = rows.slice(0, q.limit);
  const lines = page.length
    ? await em.find(SessionClientEntity, { sessionId: { $in: page.map((r) => r.id) } }, { orderBy: { id: 'asc' }, refresh: true })
    : [];
  const sessions = page
    .map((row) =>
      shownTo(
        shown(
          row,
          lines.filter((l) => l.sessionId === row.id),
          running(row.id),
        ),
        visible,
      ),
    )
    .filter((s) => s !== undefined)
    .map(({ clients: _clients, ...summary }) => summary);
  return { sessions, next: rows.length > q.limit ? page[page.length - 1]!.id : null };
}

/** One session as `visible` lets the caller see it; undefined when there is none, or none of its PCs is the caller's. */
export async function findSession(
  db: Database,
  id: number,
  running: (id: number) => LiveSession | undefined,
  visible?: ReadonlySet<string>,
  given?: EntityManager,
): Promise<SessionView | undefined> {
  const em = db.unit(given);
  // Read again, not from the caller's identity map: a session's own write queue changes it meanwhile.
  const row = await em.findOne(SessionEntity, { id }, { refresh: true });
  if (!row) return undefined;
  const lines = await em.find(SessionClientEntity, { sessionId: id }, { orderBy: { id: 'asc' }, refresh: true });
  return shownTo(shown(row, lines, running(id)), visible);
}

/** The session cut to the PCs `visible` holds, counted over those alone. */
function shownTo(view: SessionView, visible: ReadonlySet<string> | undefined): SessionView | undefined {
  if (!visible) return view;
  const clients = view.clients.filter((c) => visible.has(c.addr));
  if (clients.length === 0) return undefined;
  return {
    ...view,
    clients,
    expected: clients.filter((c) => c.state !== 'skipped').length,
    joined: clients.filter((c) => c.joined !== null).length,
    states: countStates(clients),
  };
}
