import type { Database, PluginEvents } from 'ogserve';
import type { TimelineEntry } from '../history';
import type { JobState } from './entities/job-client';
import type { JobRow } from './listing';

/** Kinds whose params only callers holding a permission see (as GET /jobs/:id shows them). */
const paramsNeed: Record<string, string> = { 'shell/run': 'shell' };

/** A job's row (as GET /jobs reads it) with one client's line of it. */
interface Row extends Omit<JobRow, 'finished_at'> {
  state: JobState;
  outcome: string;
  code: number | string | null;
  ended_at: number | string | null;
}

/**
 * The jobs' part of a PC's timeline (the history plugin asks; neither requires the other):
 * each command sent to it, and each wake run that woke it or not, with who asked and how it
 * ended there. Read by the PC's address, as the job kept it.
 */
export function jobsTimeline(events: Pick<PluginEvents, 'on'>, db: Database): void {
  events.on(
    'client.timeline',
    async (question) => {
      const rows = await db.query<Row>(
        `select j.id, j.kind, j.who, j.source, j.params, j.created_at, c.state, c.outcome, c.code, c.ended_at
         from job_clients c join jobs j on j.id = c.job_id
         where c.ip = ? and j.created_at < ? order by j.created_at desc, j.id desc limit ?`,
        [question.client.ip, question.before, question.limit],
      );
      question.add(
        rows.map((row): TimelineEntry => {
          const needs = paramsNeed[row.kind];
          const params = needs === undefined || question.permissions.has(needs) ? (JSON.parse(row.params) as unknown) : null;
          return {
            time: new Date(Number(row.created_at)).toISOString(),
            kind: 'job',
            summary: `${row.kind}: ${row.state}${row.outcome ? ` (${row.outcome})` : ''}`,
            who: row.who === '' ? null : row.who,
            source: row.source === '' ? null : row.source,
            state: row.state,
            job: Number(row.id),
            data: {
              kind: row.kind,
              outcome: row.outcome,
              code: row.code === null ? null : Number(row.code),
              params,
              ended: row.ended_at === null ? null : new Date(Number(row.ended_at)).toISOString(),
            },
          };
        }),
      );
    },
    "add the PC's jobs to its timeline",
  );
}
