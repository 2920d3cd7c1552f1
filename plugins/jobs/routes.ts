import type { IncomingMessage } from 'node:http';
import { type Access, ErrorCode, HttpError, type PluginContext, badRequest, isIpv4, positive } from 'ogserve';
import { JobSummaries } from './summaries';
import { type JobSummary, findJob, findJobs, findOutput } from './listing';
import { parseJobPageQuery, parseJobsQuery } from './query';
import { JobDetail, JobOutput, JobsPage } from './schemas';

/** What the job events carry is what these routes answer: the event stream sends them to the same readers. */
const jobEvents = ['job.created', 'job.client', 'job.finished'];

/**
 * Kinds whose params only callers holding a permission see: a script's text is as sensitive
 * as what it printed (GET /shell/output needs `shell`). Callers without it get `params: null`.
 */
const paramsNeed: Record<string, string> = { 'shell/run': 'shell' };

/** A job as `access` may see it. */
function shown<J extends JobSummary>(job: J, access: Access | undefined): J {
  const needs = paramsNeed[job.kind];
  return needs === undefined || access?.permissions.has(needs) ? job : { ...job, params: null };
}

/** GET /jobs and GET /jobs/:id: a limited caller sees only the jobs touching its clients, and only those clients. */
export function jobRoutes(ctx: PluginContext<unknown>): void {
  const summaries = new JobSummaries(ctx.db);
  ctx.router.get(
    '/jobs',
    {
      permission: 'read',
      scoped: 'filtered',
      bodyPolicy: 'forbidden',
      response: JobsPage,
      events: jobEvents,
      summary: 'Commands sent to agents, newest first: ?state=&kind=&client=&room=&who=&before=&limit=',
    },
    async ({ query, access }) => {
      const page = await findJobs(ctx.db, summaries, parseJobsQuery(query), await access?.scope?.addresses());
      return { ...page, jobs: page.jobs.map((job) => shown(job, access)) };
    },
  );

  ctx.router.get(
    '/jobs/:id',
    {
      permission: 'read',
      scoped: 'filtered',
      bodyPolicy: 'forbidden',
      response: JobDetail,
      events: jobEvents,
      summary: "One job: who asked what, and each client's state with its result, a page at a time: ?after=&limit=",
    },
    async ({ req, query, access, em }) => {
      const raw = (req as IncomingMessage & { params?: Record<string, string> }).params?.id ?? '';
      const id = positive(raw, 'id');
      const job = await findJob(ctx.db, id, parseJobPageQuery(query), await access?.scope?.addresses(), em);
      // A job touching none of a limited caller's clients is, to it, no job at all.
      if (!job) throw new HttpError(404, ErrorCode.notFound, `no job with id ${id}`);
      return shown(job, access);
    },
  );

  ctx.router.get(
    '/jobs/:id/output',
    {
      permission: 'read',
      scoped: 'filtered',
      bodyPolicy: 'forbidden',
      audit: false,
      response: JobOutput,
      summary: 'What one client of a job printed, and its exit code: ?client=<ip>',
    },
    async ({ req, query, access, em }) => {
      const raw = (req as IncomingMessage & { params?: Record<string, string> }).params?.id ?? '';
      const id = positive(raw, 'id');
      const ip = query.get('client') ?? '';
      if (!isIpv4(ip)) throw badRequest(ErrorCode.invalidField, `client: '${ip.slice(0, 40)}' is not an IPv4 address`, 'client');
      const found = await findOutput(ctx.db, id, ip, await access?.scope?.addresses(), em);
      if (!found) throw new HttpError(404, ErrorCode.notFound, `job ${id} has no client ${ip}`);
      const needs = paramsNeed[found.kind];
      if (needs !== undefined && !access?.permissions.has(needs))
        throw new HttpError(403, ErrorCode.forbidden, `what a ${found.kind} printed needs the '${needs}' permission`);
      return { addr: found.addr, code: found.code, output: found.output };
    },
  );
}
