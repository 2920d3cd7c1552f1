import { Type } from '@sinclair/typebox';
import { type Clock, SystemClock, definePlugin, electedEvery } from 'ogserve';
import { AgentLink } from '../agents';
import { JobsClock } from './clock';
import type { JobState } from './entities/job-client';
import { JobClientEntity } from './entities/job-client';
import { JobEntity } from './entities/job';
import { endLeftovers } from './leftovers';
import { pruneJobs } from './prune';
import { JobRecorder } from './recorder';
import { jobRoutes } from './routes';
import { jobsTimeline } from './timeline';
import { followWakeRuns } from './wake-runs';

declare module 'ogserve' {
  interface EventMap {
    /** A command was sent to agents: the job that follows it, who asked (null when nobody said) and its clients. */
    'job.created': { job: number; kind: string; who: string | null; source: string | null; clients: string[] };
    /** A client's state in a job: its first (sent or skipped), then how it ended. */
    'job.client': {
      job: number;
      kind: string;
      client: string;
      state: JobState;
      status: number | null;
      outcome: string;
      /** The exit code the agent reported (a script's), when it reported one. */
      code?: number;
    };
    /** Every client of the job has ended. */
    'job.finished': { job: number; kind: string; clients: string[] };
  }
}

export { JobsClock } from './clock';
export type { JobState } from './entities/job-client';

const hourMs = 60 * 60 * 1000;

/**
 * Every command sent to agents on the command path (REST, shell, scheduler) as a job: who
 * asked, what, when, and each client's state with its result, kept in the database
 * (GET /jobs, GET /jobs/:id), announced as it changes (`job.created`, `job.client`,
 * `job.finished`), with per-command timeouts so a client that never answers ends timed out.
 */
export default definePlugin({
  name: 'jobs',
  requires: ['inventory', 'agents'],
  // 2: `code` and `output` of each client (nullable columns: the schema update adds them).
  schemaVersion: 2,
  entities: [JobEntity, JobClientEntity],
  config: Type.Object(
    {
      /** Jobs older than this many days are deleted (0: kept for ever). */
      retention_days: Type.Integer({ minimum: 0, maximum: 36500, default: 90 }),
      /** Seconds a command of each kind (its agent path, e.g. 'image/restore') may run before its clients are timed out. */
      timeouts_s: Type.Record(Type.String(), Type.Number({ exclusiveMinimum: 0 }), { default: {} }),
      /** For kinds `timeouts_s` does not name; 0: none of the jobs' own, the agents' command_timeout_s ends a silent client. */
      default_timeout_s: Type.Number({ minimum: 0, default: 0 }),
    },
    { additionalProperties: false },
  ),
  register(ctx) {
    const clock = ctx.service<Clock>(JobsClock, () => new SystemClock());
    const recorder = ctx.make(JobRecorder);
    ctx.use(AgentLink).observers.observe((dispatch) => recorder.observe(dispatch));
    followWakeRuns(ctx.events, recorder);
    jobsTimeline(ctx.events, ctx.db);
    ctx.onStart(async () => {
      if (ctx.cluster.shared) return;
      const ended = await endLeftovers(ctx.db, clock.now());
      if (ended > 0) ctx.log.warn({ ended }, `${ended} job client(s) sent before the last stop marked failed: no answer can come now`);
    });
    ctx.onStop(() => recorder.stop());

    jobRoutes(ctx);

    // Retention: of several instances, one prunes, at start and every hour of the jobs' clock.
    if (ctx.config.retention_days === 0) return;
    const stop = electedEvery(ctx.cluster, {
      role: 'jobs-prune',
      everyMs: hourMs,
      clock,
      log: ctx.log,
      failed: 'jobs not pruned',
      async run() {
        const removed = await pruneJobs(ctx.db, ctx.config.retention_days, clock.now());
        if (removed > 0) ctx.log.info({ removed }, `jobs older than ${ctx.config.retention_days} days deleted`);
      },
    });
    ctx.onStop(stop);
  },
});
