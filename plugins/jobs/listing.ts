import type { EntityManager } from '@mikro-orm/core';
import type { Database } from 'ogserve';
import { type JobClient, JobClientEntity, type JobState } from './entities/job-client';
import { type Job, JobEntity } from './entities/job';
import type { JobPageQuery, JobsQuery } from './query';

/** A job as GET /jobs lists it: counted over the clients the caller may see. */
export interface JobSummary {
  id: number;
  kind: string;
  who: string | null;
  source: string | null;
  params: unknown;
  created: string;
  finished: string | null;
  total: number;
  states: Partial<Record<JobState, number>>;
}

/** A client's line in GET /jobs/:id. */
export interface JobClientEntry {
  addr: string;
  room: number;
  state: JobState;
  reason: string;
  status: number | null;
  outcome: string;
  /** The exit code the agent reported (a script's), null when none. */
  code: number | null;
  sent: string | null;
  ended: string | null;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const marks = (n: number): string => Array(n).fill('?').join(', ');

/**
 * The jobs matching `query`, newest first, and the `before` of the next page (null on the
 * last). With `inside` (a limited caller's addresses), only jobs touching one of them, counted
 * over those alone.
 */
export async function findJobs(
  db: Database,
  query: JobsQuery,
  inside?: ReadonlySet<string>,
  em?: EntityManager,
): Promise<{ jobs: JobSummary[]; next: number | null }> {
  if (inside?.size === 0) return { jobs: [], next: null };
  const where: string[] = [];
  const inner: string[] = [];
  const params: unknown[] = [];
  // Each condition with its values, in the order the SQL names them (outer, then the exists).
  const when = (list: string[], sql: string, ...values: unknown[]) => {
    list.push(sql);
    params.push(...values);
  };
  if (query.before !== undefined) when(where, 'j.id < ?', query.before);
  if (query.kind !== undefined) when(where, 'j.kind = ?', query.kind);
  if (query.who !== undefined) when(where, 'j.who = ?', query.who);
  if (query.state !== undefined) when(inner, 'c.state = ?', query.state);
  if (query.client !== undefined) when(inner, 'c.ip = ?', query.client);
  if (query.room !== undefined) when(inner, 'c.room = ?', query.room);
  if (inside) when(inner, `c.ip in (${marks(inside.size)})`, ...inside);
  if (inner.length > 0) where.push(`exists (select 1 from job_clients c where c.job_id = j.id and ${inner.join(' and ')})`);
  const sql = `select j.id as id from jobs j${where.length ? ` where ${where.join(' and ')}` : ''} order by j.id desc limit ?`;
  const ids = (await db.query<{ id: number | string }>(sql, [...params, query.limit + 1])).map((r) => Number(r.id));
  const page = ids.slice(0, query.limit);
  if (page.length === 0) return { jobs: [], next: null };
  const jobs = await db.unit(em).find(JobEntity, { id: { $in: page } }, { orderBy: { id: 'desc' } });
  const counts = await stateCounts(db, page, inside);
  return {
    jobs: jobs.map((job) => summaryOf(job, counts.get(job.id) ?? {})),
    next: ids.length > query.limit ? page[page.length - 1]! : null,
  };
}

/**
 * One job and a page of its clients (those inside `inside` when given), in the order they were
 * sent, with the `after` of the next page (null on the last); `total` and `states` count all of
 * them. Undefined when there is none to show.
 */
export async function findJob(
  db: Database,
  id: number,
  page: JobPageQuery,
  inside?: ReadonlySet<string>,
  given?: EntityManager,
): Promise<(JobSummary & { clients: JobClientEntry[]; next: number | null }) | undefined> {
  if (inside?.size === 0) return undefined;
  const em = db.unit(given);
  const job = await em.findOne(JobEntity, { id });
  if (!job) return undefined;
  const states = (await stateCounts(db, [id], inside)).get(id);
  if (!states) return undefined;
  const rows = await em.find(
    JobClientEntity,
    { jobId: id, ...(page.after === undefined ? {} : { id: { $gt: page.after } }), ...(inside ? { ip: { $in: [...inside] } } : {}) },
    { orderBy: { id: 'asc' }, limit: page.limit + 1 },
  );
  const shown = rows.slice(0, page.limit);
  return {
    ...summaryOf(job, states),
    clients: shown.map(entryOf),
    next: rows.length > page.limit ? shown[shown.length - 1]!.id : null,
  };
}

async function stateCounts(
  db: Database,
  ids: number[],
  inside?: ReadonlySet<string>,
): Promise<Map<number, Partial<Record<JobState, number>>>> {
  const limited = inside ? ` and ip in (${marks(inside.size)})` : '';
  const rows = await db.query<{ job: number | string; state: JobState; n: number | string }>(
    `select job_id as job, state, count(*) as n from job_clients where job_id in (${marks(ids.length)})${limited} group by job_id, state`,
    [...ids, ...(inside ?? [])],
  );
  const counts = new Map<number, Partial<Record<JobState, number>>>();
  for (const row of rows) {
    const job = counts.get(Number(row.job)) ?? {};
    job[row.state] = Number(row.n);
    counts.set(Number(row.job), job);
  }
  return counts;
}

function summaryOf(job: Job, states: Partial<Record<JobState, number>>): JobSummary {
  return {
    id: job.id,
    kind: job.kind,
    who: job.who === '' ? null : job.who,
    source: job.source === '' ? null : job.source,
    params: JSON.parse(job.params) as unknown,
    created: iso(job.createdAt)!,
    finished: iso(job.finishedAt),
    total: Object.values(states).reduce((a, b) => a + b, 0),
    states,
  };
}

function entryOf(row: JobClient): JobClientEntry {
  return {
    addr: row.ip,
    room: row.room,
    state: row.state,
    reason: row.reason,
    status: row.status,
    outcome: row.outcome,
    code: row.code ?? null,
    sent: iso(row.sentAt),
    ended: iso(row.endedAt),
  };
}

/** What one client of a job printed (and its exit code); undefined when the job has no such client inside `inside`. */
export async function findOutput(
  db: Database,
  id: number,
  ip: string,
  inside?: ReadonlySet<string>,
  given?: EntityManager,
): Promise<{ kind: string; addr: string; code: number | null; output: string | null } | undefined> {
  if (inside && !inside.has(ip)) return undefined;
  const em = db.unit(given);
  const [job, row] = await Promise.all([em.findOne(JobEntity, { id }), em.findOne(JobClientEntity, { jobId: id, ip })]);
  if (!job || !row) return undefined;
  return { kind: job.kind, addr: row.ip, code: row.code ?? null, output: row.output ?? null };
}
