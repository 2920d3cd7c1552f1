import { SystemClock, type Clock, definePlugin } from 'ogserve';
import { AgentLink, type ClientListing } from '../agents';
import { WolClock } from './clock';
import { LocalSender } from './local-sender';
import { PendingWakes } from './pending';
import { WakeRouting } from './routing';
import { WolAnswer, WolBody, WolConfig } from './schemas';
import { Waker } from './waker';
import type { WakeType } from './addresses';

export { Waker, type WakeReport, type Skipped } from './waker';
export type { WakeType } from './addresses';

declare module 'ogserve' {
  interface EventMap {
    /** Magic packets left for these clients; each shows WOL_SENT until its agent connects. */
    'wol.sent': { clients: string[]; type: WakeType; packets: number };
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
    // Each made after what it takes: the socket, the routing (it answers other instances at once), the waker.
    const local = ctx.make(LocalSender);
    ctx.make(WakeRouting);
    const waker = ctx.make(Waker);
    ctx.provide(Waker, waker);
    link.addListing(() => wolSentEntries(pending));
    ctx.events.on('agent.connected', ({ client }) => void pending.release(client));
    ctx.events.on('agent.idle', ({ client }) => void pending.release(client));
    ctx.cluster.on<string[]>('wol.pending', (clients) => {
      for (const ip of clients) if (!link.isConnected(ip)) pending.mark(ip);
    });
    ctx.events.on('client.removed', (client) => void pending.release(client.ip));

    ctx.onStart(() => local.open());
    ctx.onStop(async () => {
      pending.clear();
      await local.close();
    });

    ctx.router.post('/wol', { permission: 'operate', scoped: 'clients', body: WolBody, response: WolAnswer }, async ({ body, log }) => {
      const report = await waker.wake(body.clients, body.type);
      if (report.skipped.send_failed.length > 0) log.warn({ clients: report.skipped.send_failed }, 'wake-on-LAN packets could not be sent');
      return report;
    });
  },
});
