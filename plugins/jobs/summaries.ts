import type { Database } from 'ogserve';
import type { JobState } from './entities/job-client';
import type { Job } from './entities/job';

export type JobStates = Partial<Record<JobState, number>>;

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
  states: JobStates;
}

export const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const marks = (n: number): string => Array(n).fill('?').join(', ');

/** Ended jobs' summaries kept: a few hundred bytes each. */
const keptAtMost = 10_000;

/**
 * Summaries of jobs over all their clients, for GET /jobs. A job's lines stop changing once
 * its `finishedAt` is written (the recorder writes it after the last client's end), so an
 * ended job is counted and summed up once and kept: counting a page of 50 jobs of 2,000 PCs
 * read 100,000 rows per request. Jobs still running are counted every time. A count in
 * progress is shared by the requests that ask for the same job meanwhile. A kept summary is
 * used only for the job made when it was: an id given again (after every job was pruned, on
 * an engine that reuses them) is another job.
 */
export class JobSummaries {
  private readonly ended = new Map<number, { createdAt: number; summary: JobSummary }>();
  private readonly counting = new Map<number, { createdAt: number; summary: Promise<JobSummary> }>();

  constructor(private readonly db: Database) {}

  /** Summaries of `jobs`, in their order. */
  async of(jobs: Job[]): Promise<JobSummary[]> {
    const known = jobs.map((job) => {
      const kept = this.ended.get(job.id) ?? this.counting.get(job.id);
      return kept?.createdAt === job.createdAt ? kept.summary : undefined;
    });
    const uncounted = jobs.filter((_, i) => known[i] === undefined);
    if (uncounted.length === 0) return Promise.all(known as (JobSummary | Promise<JobSummary>)[]);
    const counted = this.count(uncounted);
    return Promise.all(known.map((summary, i) => summary ?? counted.then((all) => all.get(jobs[i]!.id)!)));
  }

  private async count(jobs: Job[]): Promise<Map<number, JobSummary>> {
    const ids = jobs.map((job) => job.id);
    const counted = stateCounts(this.db, ids).then((all) => new Map(jobs.map((job) => [job.id, summaryOf(job, all.get(job.id) ?? {})])));
    const finished = jobs.filter((job) => job.finishedAt !== null);
    for (const job of finished) {
      const summary = counted.then((all) => all.get(job.id)!);
      // Whoever shares it sees a failure; left alone, it must not end the process.
      summary.catch(() => undefined);
      this.counting.set(job.id, { createdAt: job.createdAt, summary });
    }
    try {
      const all = await counted;
      for (const job of finished) this.keep(job, all.get(job.id)!);
      return all;
    } finally {
      for (const job of finished) this.counting.delete(job.id);
    }
  }

  private keep(job: Job, summary: JobSummary): void {
    if (this.ended.size >= keptAtMost) this.ended.delete(this.ended.keys().next().value!);
    this.ended.set(job.id, { createdAt: job.createdAt, summary });
  }
}

export function summaryOf(job: Job, states: JobStates): JobSummary {
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

/** Clients of jobs `ids` counted by state, over those inside `inside` when given. */
export async function stateCounts(db: Database, ids: number[], inside?: ReadonlySet<string>): Promise<Map<number, JobStates>> {
  const limited = inside ? ` and ip in (${marks(inside.size)})` : '';
  const rows = await db.query<{ job: number | string; state: JobState; n: number | string }>(
    `select job_id as job, state, count(*) as n from job_clients where job_id in (${marks(ids.length)})${limited} group by job_id, state`,
    [...ids, ...(inside ?? [])],
  );
  const counts = new Map<number, JobStates>();
  for (const row of rows) {
    const job = counts.get(Number(row.job)) ?? {};
    job[row.state] = Number(row.n);
    counts.set(Number(row.job), job);
  }
  return counts;
}
