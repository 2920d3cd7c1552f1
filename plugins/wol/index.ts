import type { IncomingMessage } from 'node:http';
import { Counter, SystemClock, type Clock, definePlugin } from 'ogserve';
import type { AuditCommand } from '../audit';
import { Inventory } from '../inventory';
import { AgentLink, askerOf, type ClientListing } from '../agents';
import { WolClock } from './clock';
import { LocalSender } from './local-sender';
import { PendingWakes } from './pending';
import { WakeRouting } from './routing';
import type { RunClientState, WakeFailure } from './run';
import { runRoutes } from './run-routes';
import { WakeRuns } from './runs';
import { WolAnswer, WolBody, WolConfig } from './schemas';
import { Waker } from './waker';
import type { WakeType } from './addresses';

export { Waker, type WakeReport, type Skipped } from './waker';
export type { WakeType } from './addresses';
export type { RunClientState, WakeFailure } from './run';

declare module 'ogserve' {
  interface EventMap {
    /** Magic packets of wake run `run` left for these clients; each shows WOL_SENT until its agent connects. */
    'wol.sent': { run: number; clients: string[]; type: WakeType; packets: number };
    /** A wake run began: who asked, and the clients it wakes. */
    'wol.run.started': { run: number; type: WakeType; who: string | null; source: string | null; clients: string[] };
    /** A client of a run ended (awake, wake_failed, send_failed, cancelled); `reason` of a wake_failed one. */
    'wol.run.client': { run: number; client: string; state: RunClientState; tries: number; reason: WakeFailure | null };
    /** A run ended (`done` or `cancelled`), with its clients counted by state. */
    'wol.run.finished': { run: number; state: 'done' | 'cancelled'; states: Partial<Record<RunClientState, number>> };
  }
  interface InternalEventMap {
    /**
     * A request (POST /wol) started wake run `run`: told before it answers, so that the plugin
     * that makes the run a job (jobs) can name that job in the request's audit entry.
     */
    'wol.run.asked': { run: number; req: IncomingMessage; clients: { ip: string; id: number; name: string }[] };
  }
}

export { WolClock } from './clock';

function* wolSentEntries(pending: PendingWakes): Iterable<ClientListing> {
  for (const addr of pending.ips()) yield { addr, state: 'WOL_SENT', last_cmd: { result: 'unknown' } };
}

/**
 * Wake-on-LAN: POST /wol sends magic packets and shows each woken client as WOL_SENT in
 * GET /clients until its agent connects or `pending_timeout_s` passes. Provides `Waker`
 * for plugins that wake clients themselves (the scheduler's wol steps).
 */
export default definePlugin({
  name: 'wol',
  requires: ['inventory', 'agents'],
  config: WolConfig,
  register(ctx) {
    const link = ctx.use(AgentLink);
    ctx.service<Clock>(WolClock, () => new SystemClock());
    const pending = ctx.make(PendingWakes);
    const runs = ctx.make(WakeRuns);
    // Each made after what it takes: the socket, the routing (it answers other instances at once), the waker.
    const local = ctx.make(LocalSender);
    ctx.make(WakeRouting);
    const waker = ctx.make(Waker);
    ctx.provide(Waker, waker);
    link.addListing(() => wolSentEntries(pending));
    ctx.events.on('agent.connected', ({ client }) => {
      pending.release(client);
      runs.connected(client);
    });
    ctx.events.on('agent.idle', ({ client }) => void pending.release(client));
    ctx.cluster.on<string[]>('wol.pending', (clients) => {
      for (const ip of clients) if (!link.isConnected(ip)) pending.mark(ip);
    });
    ctx.events.on('client.removed', (client) => {
      pending.release(client.ip);
      runs.forget(client.ip);
    });

    ctx.onStart(() => local.open());
    ctx.onStop(async () => {
      runs.stop();
      pending.clear();
      await local.close();
    });

    const failed = new Counter({
      name: 'ogserve_wol_wake_failed_total',
      help: 'Clients whose agent did not connect after every wake of a run, by reason',
      labelNames: ['reason'],
      registers: [ctx.metrics],
    });
    ctx.events.on('wol.run.client', ({ state, reason }) => {
      if (state === 'wake_failed') failed.inc({ reason: reason ?? 'no_agent' });
    });

    ctx.router.post(
      '/wol',
      { permission: 'operate', scoped: { clients: 'clients' }, body: WolBody, response: WolAnswer },
      async ({ body, log, access, req }) => {
        const report = await waker.wake(body.clients, body.type, askerOf(access));
        if (report.skipped.send_failed.length > 0)
          log.warn({ clients: report.skipped.send_failed }, 'wake-on-LAN packets could not be sent');
        if (report.run !== null) {
          // The audit entry says what was woken; the jobs plugin, if on, adds the run's job.
          const woken = (await ctx.use(Inventory).clientsByIps(report.sent)).map((c) => ({ ip: c.ip, id: c.id, name: c.name }));
          const command: AuditCommand = { job: null, kind: 'wol', clients: woken };
          await ctx.events.tell('audit.details', { req, command });
          await ctx.events.tell('wol.run.asked', { run: report.run, req, clients: woken });
        }
        return report;
      },
    );
    runRoutes(ctx, runs);
  },
});
