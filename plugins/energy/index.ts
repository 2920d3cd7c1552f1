import { Type } from '@sinclair/typebox';
import { type Clock, SystemClock, definePlugin, electedEvery } from 'ogserve';
import { HardwareInventory } from '../agents';
import { Inventory } from '../inventory';
import { EnergyClock } from './clock';
import { dayReading, writeToday } from './days';
import { PowerDayEntity } from './entities/power-day';
import { PowerStateEntity } from './entities/power-state';
import { UserSessionEntity } from './entities/user-session';
import { EnergyMetrics } from './metrics';
import { prunePowerStates } from './prune';
import { PowerRecorder } from './recorder';
import { energyRoutes } from './routes';
import { Readings } from './readings';
import { SessionLog } from './sessions';
import { powerStatesTimeline, sessionsTimeline } from './timeline';
import { powerStateOf } from './states';
import { SomeWatts, StateWatts, WattsRules } from './watts';

export { EnergyClock } from './clock';
export { type PowerState, powerStates } from './states';

const hourMs = 60 * 60 * 1000;

/**
 * Each PC's power-state history (off, idle, session, busy), one row per change, from the
 * agents' states and wake-on-LAN packets, and its users' sign-ins (its timeline shows them); GET /energy answers hours in each state and the
 * estimated kWh by PC, room, center or day (JSON or CSV), GET /energy/now the PCs on with
 * nobody using them; the metrics count PCs per state and hours.
 */
export default definePlugin({
  name: 'energy',
  requires: ['inventory', 'agents'],
  // 2: user_sessions (sign-ins and sign-outs for the PC's timeline).
  schemaVersion: 2,
  entities: [PowerStateEntity, PowerDayEntity, UserSessionEntity],
  config: Type.Object(
    {
      /** Rows that ended more than this many days ago are deleted (0: kept for ever). */
      retention_days: Type.Integer({ minimum: 0, maximum: 36500, default: 400 }),
      /** Watts a PC draws in each state, unless its room or model says otherwise. */
      watts: StateWatts,
      /** By room id: watts of that room's PCs (a room measured on its circuit), state by state. */
      rooms: Type.Record(Type.String({ pattern: '^[1-9][0-9]*$' }), SomeWatts, { default: {} }),
      /** By make and model (the `mod` line of the hardware inventory; `*` any text, case ignored). */
      models: Type.Record(Type.String({ minLength: 1 }), SomeWatts, { default: {} }),
      /** A PC woken by wake-on-LAN counts as booting (busy) until its agent connects, or this long. */
      wake_window_s: Type.Number({ minimum: 0, default: 600 }),
    },
    { additionalProperties: false },
  ),
  register(ctx) {
    const inventory = ctx.use(Inventory);
    const hardware = ctx.use(HardwareInventory);
    const clock = ctx.service<Clock>(EnergyClock, () => new SystemClock());
    // The gauge reads the recorder's states when scraped, once both are made.
    const metrics: EnergyMetrics = new EnergyMetrics(ctx.metrics, () => power.states());
    const power: PowerRecorder = new PowerRecorder(
      ctx.db,
      inventory,
      clock,
      ctx.log,
      metrics,
      ctx.cluster.shared,
      ctx.config.wake_window_s * 1000,
    );

    ctx.events.on(
      'client.state',
      ({ client, new: state }) => {
        const now = powerStateOf(state);
        if (now) void power.changed(client, now);
      },
      'keep the power states',
    );
    ctx.events.on('wol.sent', ({ clients }) => void Promise.all(clients.map((ip) => power.woken(ip))), 'keep the power states');
    ctx.events.on('client.saved', (client) => void power.added(client.id), 'keep the power states');
    ctx.events.on('client.removed', (client) => void power.removed(client.id), 'keep the power states');
    powerStatesTimeline(ctx.events, ctx.db);
    const sessions = new SessionLog(ctx.db, inventory, clock, ctx.log);
    ctx.events.on('client.session', ({ client, action, user, os }) => void sessions.record(client, action, user, os), 'keep the sign-ins');
    sessionsTimeline(ctx.events, ctx.db);
    ctx.onStart(() => power.start());
    ctx.onStop(() => power.stop());
    ctx.onStop(() => sessions.flushed());

    const readings = new Readings(
      ctx.db,
      () => power.latestRows(),
      (day, ids) => dayReading(ctx.db, day, ids),
    );
    energyRoutes(ctx, { readings, inventory, hardware, rules: new WattsRules(ctx.config) }, clock);

    // Of several instances, one writes each midnight's reading and prunes, at start and every hour of the energy clock.
    const stop = electedEvery(ctx.cluster, {
      role: 'energy-daily',
      everyMs: hourMs,
      clock,
      log: ctx.log,
      failed: 'midnight power readings not written or power states not pruned',
      async run() {
        await writeToday(ctx.db, inventory, clock.now());
        if (ctx.config.retention_days === 0) return;
        const ids = [...(await inventory.allClients())].map((c) => c.id);
        const removed = await prunePowerStates(ctx.db, ids, ctx.config.retention_days, clock.now());
        if (removed > 0) ctx.log.info({ removed }, `power states older than ${ctx.config.retention_days} days deleted`);
      },
    });
    ctx.onStop(stop);
  },
});
