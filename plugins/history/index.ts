import { Type } from '@sinclair/typebox';
import { type Clock, SystemClock, definePlugin, electedEvery } from 'ogserve';
import { HardwareInventory, SoftwareInventory } from '../agents';
import { Inventory } from '../inventory';
import type { HardwareChange, SoftwareChange } from './diff';
import { HistoryChangeEntity } from './entities/change';
import { pruneChanges } from './prune';
import { HistoryCounters, HistoryRecorder } from './recorder';
import { HistoryClock } from './clock';
import { type Alert, AlertRule, defaultRules } from './rules';
import { historyRoutes } from './routes';

declare module 'ogserve' {
  interface EventMap {
    /** A client's hardware differs from its previous report: the differences, and the alerts they raised. */
    'client.hardware.changed': {
      client: string;
      name: string;
      time: string;
      changes: (HardwareChange & { type_name: string; alerts: string[] })[];
      alerts: Alert[];
    };
    /** A partition's software differs from its previous report. */
    'client.software.changed': {
      client: string;
      name: string;
      time: string;
      disk: number;
      partition: number;
      changes: (SoftwareChange & { alerts: string[] })[];
      alerts: Alert[];
    };
  }
}

export type { Alert, AlertRule } from './rules';
export type { HistoryEntry } from './query';
export type { HardwareReport, SoftwareReport } from './reports';

export { HistoryClock } from './clock';
export type { TimelineEntry, TimelineQuestion } from './timeline';

const hourMs = 60 * 60 * 1000;

/**
 * What changed on each PC: every hardware and software inventory the agents store is
 * compared with the one before it, and only the differences are kept (GET /client/history),
 * announced (`client.hardware.changed`, `client.software.changed`, with the alerts the
 * configured rules raise) and counted. Fleet reports count the inventories as they are now
 * (GET /reports/hardware, GET /reports/software), in JSON or CSV.
 */
export default definePlugin({
  name: 'history',
  requires: ['inventory', 'agents'],
  schemaVersion: 1,
  entities: [HistoryChangeEntity],
  config: Type.Object(
    {
      /** Changes older than this many days are deleted (0: kept for ever). */
      retention_days: Type.Integer({ minimum: 0, maximum: 36500, default: 365 }),
      /** What counts as an alert. */
      alerts: Type.Array(AlertRule, { default: defaultRules }),
    },
    { additionalProperties: false },
  ),
  register(ctx) {
    const inventory = ctx.use(Inventory);
    const hardware = ctx.use(HardwareInventory);
    const software = ctx.use(SoftwareInventory);
    const clock = ctx.service<Clock>(HistoryClock, () => new SystemClock());
    ctx.make(HistoryCounters);
    const recorder = ctx.make(HistoryRecorder);
    ctx.events.on('client.hardware.reported', (report) => recorder.hardware(report), 'keep the hardware history');
    ctx.events.on('client.software.reported', (report) => recorder.software(report), 'keep the software history');

    historyRoutes(ctx, inventory, hardware, software);

    // Retention: of several instances, one prunes, at start and every hour of the history's clock.
    if (ctx.config.retention_days === 0) return;
    const stop = electedEvery(ctx.cluster, {
      role: 'history-prune',
      everyMs: hourMs,
      clock,
      log: ctx.log,
      failed: 'history changes not pruned',
      async run() {
        const removed = await pruneChanges(ctx.db, ctx.config.retention_days, clock.now());
        if (removed > 0) ctx.log.info({ removed }, `history changes older than ${ctx.config.retention_days} days deleted`);
      },
    });
    ctx.onStop(stop);
  },
});
