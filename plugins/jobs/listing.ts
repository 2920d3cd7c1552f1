import type { EntityManager } from '@mikro-orm/core';
import type { Database } from 'ogserve';
import { type JobClient, JobClientEntity, type JobState } from './entities/job-client';
import { type Job, JobEntity } from './entities/job';
import type { JobPageQuery, JobsQuery } from './query';
import { type JobSummaries, type JobSummary, iso, stateCounts, summaryOf } from './summaries';

export type { JobSummary } from './summaries';

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

const marks = (n: number): string => Array(n).fill('?').join(', ');

/**
 * The jobs matching `query`, newest first, and the `before` of the next page (null on the
 * last). With `inside` (a limited caller's addresses), only jobs touching one of them, counted
 * over those alone.
 */
export async function findJobs(
  db: Database,
  summaries: JobSummaries,
  query: JobsQuery,
  inside?: ReadonlySet<string>,
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
  // Read as plain rows, not entities: hydrating a page of 50 jobs was most of a request's CPU.
  const sql = `select j.id, j.kind, j.who, j.source, j.params, j.created_at, j.finished_at from jobs j${where.length ? ` where ${where.join(' and ')}` : ''} order by j.id desc limit ?`;
  const rows = await db.query<JobRow>(sql, [...params, query.limit + 1]);
  const jobs = rows.slice(0, query.limit).map(jobOf);
  if (jobs.length === 0) return { jobs: [], next: null };
  return {
    jobs: inside ? await limitedSummaries(db, jobs, inside) : await summaries.of(jobs),
    next: rows.length > query.limit ? jobs[jobs.length - 1]!.id : null,
  };
}

/** Jobs as a limited caller sees them: counted over its own clients, each time. */
async function limitedSummaries(db: Database, jobs: Job[], inside: ReadonlySet<string>): Promise<JobSummary[]> {
  const states = await stateCounts(
    db,
    jobs.map((job) => job.id),
    inside,
  );
  return jobs.map((job) => summaryOf(job, states.get(job.id) ?? {}));
}

/** A row of `jobs` as the engines give it: numbers may come as strings (bigint, decimal). */
export interface JobRow {
  id: number | string;
  kind: string;
  who: string;
  source: string;
  params: string;
  created_at: number | string;
  finished_at: number | string | null;
}

function jobOf(row: JobRow): Job {
  return {
    id: Number(row.id),
    kind: row.kind,
    who: row.who,
    source: row.source,
    params: row.params,
    createdAt: Number(row.created_at),
    finishedAt: row.finished_at === null ? null : Number(row.finished_at),
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
