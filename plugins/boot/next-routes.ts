import { type Clock, type PluginContext, SystemClock } from 'ogserve';
import type { Inventory } from '../inventory';
import { UnknownModeError, type BootFiles } from '../pxe-modes';
import type { PendingBoot } from './entities/next-boot';
import { BootClock } from './clock';
import { OneShots } from './next';
import type { NextRevert } from './next-events';
import { NextAnswer, NextBody, PendingAnswer } from './next-schemas';
import type { BootSettings } from './schemas';

/**
 * One-shot boots: their store, what ends them, and their routes. 'agent.connected' comes from
 * the agents plugin when it runs (declared in its announce.ts, part of this build); without
 * it, `revert: agent` ends at the timeout. A served script is the 'boot.stage' this plugin's
 * script routes announce.
 */
export function oneShotBoots(ctx: PluginContext<BootSettings>, bootFiles: BootFiles, inventory: Inventory): void {
  const clock = ctx.service<Clock>(BootClock, () => new SystemClock());
  const oneShots = new OneShots({ db: ctx.db, inventory, bootFiles, events: ctx.events, cluster: ctx.cluster, clock, log: ctx.log });
  ctx.onStart(() => oneShots.load());
  const failed = (ip: string) => (error: Error) =>
    ctx.log.error({ err: error, client: ip }, `one-shot boot of ${ip} not put back: ${error.message}`);
  // Not awaited: the listeners after these (a timeline, the event stream) are not held up by a query.
  ctx.events.on('agent.connected', ({ client }) => void oneShots.end(client, 'agent').catch(failed(client)));
  ctx.events.on('boot.stage', ({ client, stage }) => {
    if (stage === 'script') void oneShots.end(client, 'served').catch(failed(client));
  });
  ctx.events.on('clients.removed', (clients) => oneShots.forget(clients.map((c) => c.ip)), 'forget their one-shot boots');
  nextRoutes(ctx, oneShots, bootFiles, inventory);
}

/** POST /boot/next sets one-shot boots (as POST /mode sets a mode); GET /boot/next lists those the key may see. */
function nextRoutes(ctx: PluginContext<BootSettings>, oneShots: OneShots, bootFiles: BootFiles, inventory: Inventory): void {
  ctx.router.post(
    '/boot/next',
    {
      permission: 'operate',
      scoped: { clients: 'clients' },
      body: NextBody,
      response: NextAnswer,
      summary: 'Boot PCs into a mode once: their previous mode comes back when their agent connects or script is served, or at the timeout',
    },
    async ({ body }) => {
      if (!(await bootFiles.modes()).includes(body.mode)) throw new UnknownModeError(body.mode);
      const clients = await inventory.clientsByIps(body.clients);
      const rows =
        clients.length === 0 ? [] : await oneShots.set(clients, body.mode, body.revert, body.timeout_s ?? ctx.config.next_timeout_s);
      const known = new Set(clients.map((c) => c.ip));
      return { pending: rows.map(listed), unknown: [...new Set(body.clients)].filter((ip) => !known.has(ip)) };
    },
  );

  ctx.router.get(
    '/boot/next',
    {
      permission: 'read',
      scoped: 'filtered',
      bodyPolicy: 'forbidden',
      response: PendingAnswer,
      events: ['boot.next.set', 'boot.next.reverted'],
      summary: 'The one-shot boots waiting to be put back',
    },
    async ({ access, em }) => ({ pending: (await oneShots.pending(await access?.scope?.addresses(), em)).map(listed) }),
  );
}

function listed(row: PendingBoot) {
  return {
    client: row.ip,
    mode: row.mode,
    previous: row.previous,
    revert: row.revert as NextRevert,
    since: new Date(row.since).toISOString(),
    until: new Date(row.until).toISOString(),
  };
}
