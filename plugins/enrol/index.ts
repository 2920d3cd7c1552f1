import path from 'node:path';
import { type Clock, SystemClock, definePlugin } from 'ogserve';
import { AgentCommands, AgentLink, HardwareInventory } from '../agents';
import { UnknownPcs } from '../boot';
import { ClientBatch, Inventory } from '../inventory';
import { Assigner } from './assign';
import { EnrolClock } from './clock';
import { Discovery } from './discovery';
import { DiscoveredPcEntity } from './entities/discovered';
import './events';
import { colonMac } from './events';
import { RestoreAfter } from './restore';
import { enrolRoutes } from './routes';
import { Rules } from './rules';
import { EnrolConfig } from './schemas';
import { DiscoveredStore, componentsOf } from './store';

export { EnrolClock } from './clock';
export type { DiscoveredPcAnswer } from './schemas';

/**
 * New PCs enrol themselves: a PC nobody registered, booting where `boot.unknown_client`
 * says `discover`, gets the live image; its agent is taken as a guest (never a client's
 * agent: GET /clients and the reference's clients see nothing of it) and reports its hardware;
 * it is listed at GET /discovered until it is put in a room (one request, or a rule) or
 * forgotten. Not enabled by default.
 */
export default definePlugin({
  name: 'enrol',
  requires: ['inventory', 'agents', 'boot'],
  schemaVersion: 1,
  entities: [DiscoveredPcEntity],
  config: EnrolConfig,
  console: { title: { en: 'New PCs', es: 'Equipos nuevos' }, dir: path.join(__dirname, 'console'), entry: 'view.js' },
  register(ctx) {
    const { config } = ctx;
    const inventory = ctx.use(Inventory);
    const link = ctx.use(AgentLink);
    const clock = ctx.service<Clock>(EnrolClock, () => new SystemClock());
    const store = new DiscoveredStore(ctx.db);
    const rules = new Rules(config.rules);
    const discovery = new Discovery({
      store,
      inventory,
      unknown: ctx.use(UnknownPcs),
      events: ctx.events,
      log: ctx.log,
      clock,
      config,
    });
    const restore = new RestoreAfter(link, ctx.events, clock, ctx.log, config.restore_wait_s * 1000);
    const batch = ctx.use(ClientBatch);
    const assigner = new Assigner({
      store,
      discovery,
      inventory,
      batch,
      hardware: ctx.use(HardwareInventory),
      commands: ctx.use(AgentCommands),
      restore,
      events: ctx.events,
      log: ctx.log,
    });

    // The seams the boot and agents plugins offer: unknown PCs' boots, and agents from unknown addresses.
    ctx.use(UnknownPcs).discoverWith((pc) => discovery.boot(pc), 'enrol');
    link.admitStrangers((ip) => discovery.gate(ip), 'enrol');

    // A rule assigns a PC as soon as its hardware is read.
    discovery.onDiscovered = async (mac) => {
      const [row] = await store.byMacs([mac]);
      if (!row) return;
      const matched = rules.match({ ip: row.ip, hardware: componentsOf(row) });
      if (!matched) return;
      const { rule, number } = matched;
      await assigner
        .assign(
          { macs: [mac], room: rule.room, names: rule.names, addresses: rule.addresses, mode: rule.mode },
          { rule: number, asker: { name: `enrol.rules[${number - 1}]`, source: 'enrol' } },
        )
        .catch((error: Error) =>
          ctx.log.warn({ mac: colonMac(mac), rule: number }, `rule ${number} did not assign ${colonMac(mac)}: ${error.message}`),
        );
    };
    ctx.events.on('client.saved', (client) => discovery.clientSaved(client), 'forget a discovered PC added as a client');

    enrolRoutes(ctx, { discovery, assigner, confirm: { store, inventory, batch, events: ctx.events } });
    ctx.onStart(() => {
      if (!ctx.use(UnknownPcs).discovers)
        ctx.log.warn("enrol is on, but boot.unknown_client discovers nowhere: set it to 'discover' (or per network) for PCs to enrol");
    });
    ctx.onStop(async () => {
      restore.stop();
      await discovery.stop();
    });
  },
});
