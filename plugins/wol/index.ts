import { Counter } from 'prom-client';
import { SystemClock, type Clock, StartupError, definePlugin } from 'ogserve';
import { AgentLink, type ClientListing } from '../agents';
import { Inventory } from '../inventory';
import { PendingWakes } from './pending';
import { WakeRouting, parseNetwork } from './routing';
import { WolAnswer, WolBody, WolConfig } from './schemas';
import { WakeSocket } from './sender';
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

/** The clock of WOL_SENT lifetimes: tests register a ManualClock under it and move time instead of sleeping. */
export const WolClock = Symbol('WolClock');

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
    const inventory = ctx.use(Inventory);
    const link = ctx.use(AgentLink);
    const clock = ctx.service<Clock>(WolClock, () => new SystemClock());
    const packetsSent = new Counter({
      name: 'ogserve_wol_packets_total',
      help: 'Magic packets this instance sent',
      registers: [ctx.metrics],
    });
    const pending = new PendingWakes(ctx.config.pending_timeout_s * 1000, clock);
    let socket: WakeSocket | undefined;
    const networks = ctx.config.networks.map((text, i) => {
      const network = parseNetwork(text);
      if (!network) throw new StartupError(`wol.networks[${i}]: '${text}' is not an IPv4 network like 10.1.0.0/16`);
      return network;
    });
    const routing = new WakeRouting(
      ctx.cluster,
      networks,
      async (datagrams, port) => {
        if (!socket) throw new Error('the wake-on-LAN socket is not open');
        const errors = await socket.sendAll(datagrams, port);
        packetsSent.inc(errors.filter((error) => error === undefined).length);
        return errors;
      },
      ctx.log,
    );
    const settings = {
      port: ctx.config.port,
      interfaceName: ctx.config.interface || undefined,
      limitedBroadcast: ctx.config.limited_broadcast,
    };
    const waker = new Waker(
      inventory,
      link,
      pending,
      settings,
      () => routing,
      (clients, type, packets) => {
        void ctx.events.emit('wol.sent', { clients, type, packets });
        // Every instance's GET /clients shows them WOL_SENT.
        ctx.cluster.broadcast('wol.pending', clients);
      },
    );

    ctx.provide(Waker, waker);
    link.addListing(() => wolSentEntries(pending));
    ctx.events.on('agent.connected', ({ client }) => void pending.release(client));
    ctx.events.on('agent.idle', ({ client }) => void pending.release(client));
    ctx.cluster.on<string[]>('wol.pending', (clients) => {
      for (const ip of clients) if (!link.isConnected(ip)) pending.mark(ip);
    });
    ctx.events.on('client.removed', (client) => void pending.release(client.ip));

    ctx.onStart(async () => {
      socket = await WakeSocket.open();
    });
    ctx.onStop(async () => {
      pending.clear();
      await socket?.close();
      socket = undefined;
    });

    ctx.router.post('/wol', { permission: 'operate', scoped: 'clients', body: WolBody, response: WolAnswer }, async ({ body, log }) => {
      const report = await waker.wake(body.clients, body.type);
      if (report.skipped.send_failed.length > 0) log.warn({ clients: report.skipped.send_failed }, 'wake-on-LAN packets could not be sent');
      return report;
    });
  },
});
