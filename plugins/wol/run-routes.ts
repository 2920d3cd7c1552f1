import type { IncomingMessage } from 'node:http';
import { type Access, ErrorCode, HttpError, type PluginContext, badRequest } from 'ogserve';
import { runClientStates, type WakeRun, wakeFailures } from './run';
import type { WakeRuns } from './runs';
import { RunCancelled, RunDetail, RunsList, WakeFailures } from './schemas';

/** What the run events carry is what these routes answer: the event stream sends them to the same readers. */
const runEvents = ['wol.run.started', 'wol.run.client', 'wol.run.finished'];

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function summary(run: WakeRun, clients: number) {
  return {
    id: run.id,
    type: run.type,
    who: run.asker?.name ?? null,
    source: run.asker?.source ?? null,
    state: run.state,
    created: new Date(run.created).toISOString(),
    finished: iso(run.finished),
    total: clients,
  };
}

/** The clients of `run` that `visible` lets the caller see (all when it is undefined). */
function shownClients(run: WakeRun, visible: ReadonlySet<string> | undefined) {
  return [...run.clients.values()].filter((c) => !visible || visible.has(c.ip));
}

function runId(req: IncomingMessage): number {
  const raw = (req as IncomingMessage & { params?: Record<string, string> }).params?.id ?? '';
  if (!/^[1-9][0-9]{0,9}$/.test(raw)) throw badRequest(ErrorCode.invalidField, 'id: must be a whole number from 1', 'id');
  return Number(raw);
}

/**
 * The run `id` as `access` may see it: a run touching none of a limited caller's clients is,
 * to it, no run at all.
 */
async function visibleRun(runs: WakeRuns, req: IncomingMessage, access: Access | undefined) {
  const id = runId(req);
  const run = runs.get(id);
  const visible = await access?.scope?.addresses();
  const clients = run ? shownClients(run, visible) : [];
  if (!run || clients.length === 0) throw new HttpError(404, ErrorCode.notFound, `no wake run with id ${id}`);
  return { run, clients };
}

/** GET /wol/runs, GET /wol/runs/:id (progress, per client), DELETE /wol/runs/:id (cancel) and GET /wol/failed. */
export function runRoutes(ctx: PluginContext<unknown>, runs: WakeRuns): void {
  ctx.router.get(
    '/wol/runs',
    {
      permission: 'read',
      scoped: 'filtered',
      bodyPolicy: 'forbidden',
      response: RunsList,
      events: runEvents,
      summary: 'Wake runs kept in memory (running, then the last ended), newest first',
    },
    async ({ access }) => {
      const visible = await access?.scope?.addresses();
      const shown = runs.list().map((run) => ({ run, clients: shownClients(run, visible) }));
      return {
        runs: shown
          .filter(({ clients }) => clients.length > 0)
          .map(({ run, clients }) => ({ ...summary(run, clients.length), states: counts(clients) })),
      };
    },
  );

  ctx.router.get(
    '/wol/failed',
    {
      permission: 'read',
      scoped: 'filtered',
      bodyPolicy: 'forbidden',
      response: WakeFailures,
      events: runEvents,
      summary: 'Clients whose last wake run left them wake_failed, while their agent has not connected since',
    },
    async ({ access }) => {
      const visible = await access?.scope?.addresses();
      const clients = runs.failures().filter((f) => !visible || visible.has(f.ip));
      return {
        clients: clients.map((f) => ({ addr: f.ip, run: f.run, reason: f.reason, outcome: wakeFailures[f.reason], ended: iso(f.at) })),
      };
    },
  );

  ctx.router.get(
    '/wol/runs/:id',
    {
      permission: 'read',
      scoped: 'filtered',
      bodyPolicy: 'forbidden',
      response: RunDetail,
      events: runEvents,
      summary: "One wake run: its progress, and each client's state (?state= lists only the clients in that state)",
    },
    async ({ req, access, query }) => {
      const only = query.get('state');
      if (only !== null && !(runClientStates as readonly string[]).includes(only))
        throw badRequest(ErrorCode.invalidField, `state: one of ${runClientStates.join(', ')}`, 'state');
      const { run, clients } = await visibleRun(runs, req, access);
      return {
        ...summary(run, clients.length),
        states: counts(clients),
        clients: clients
          .filter((c) => only === null || c.state === only)
          .map((c) => ({
            addr: c.ip,
            room: c.room,
            state: c.state,
            tries: c.tries,
            packets: c.packets,
            sent: iso(c.sentAt),
            ended: iso(c.endedAt),
            reason: c.reason,
            outcome: c.reason ? wakeFailures[c.reason] : '',
          })),
      };
    },
  );

  ctx.router.delete(
    '/wol/runs/:id',
    {
      permission: 'operate',
      scoped: 'filtered',
      bodyPolicy: 'forbidden',
      response: RunCancelled,
      summary: 'Cancel a wake run: nothing more is sent or checked',
    },
    async ({ req, access }) => {
      const { run, clients } = await visibleRun(runs, req, access);
      // A limited caller stops only a run whose every client it may wake.
      if (clients.length < run.clients.size)
        throw new HttpError(
          403,
          ErrorCode.forbidden,
          `wake run ${run.id} wakes clients outside ${access?.scope?.description ?? 'the scope'}`,
        );
      if (!run.cancel()) throw badRequest(ErrorCode.conflict, `id: wake run ${run.id} has already ended (${run.state})`, 'id');
      return { id: run.id, state: run.state };
    },
  );
}

function counts(clients: { state: string }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const { state } of clients) out[state] = (out[state] ?? 0) + 1;
  return out;
}
