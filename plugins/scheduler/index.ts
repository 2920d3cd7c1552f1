import { Type } from '@sinclair/typebox';
import { definePlugin } from 'ogserve';
import { AgentLink } from '../agents';
import { Groups } from '../groups';
import { Inventory } from '../inventory';
import { SchedulerClock, SystemClock, type Clock } from './clock';
import { ActionEntity } from './entities/action';
import { ProcedureEntity, ProcedureStepEntity } from './entities/procedure';
import { ScheduleEntity } from './entities/schedule';
import { TaskEntity, TaskStepEntity } from './entities/task';
import { auditSchedulerWrites } from './audit';
import { schedulerRoutes } from './routes';
import { Scheduler } from './service';
import { schedulerImport } from './import-part';

export { Scheduler, type ScheduleView } from './service';
export { SchedulerClock, SystemClock, type Clock } from './clock';
export { nextOccurrence, occurrences, readYears, whenAt, type When } from './calendar';
export type { Action, ActionState, ActionResult } from './entities/action';

/**
 * The scheduler: procedures, tasks, schedules and the per-client queue of commands they
 * produce, in the reference's scheduling endpoints. Enabled by default (nothing else
 * depends on it being off: it sends nothing to an agent with nothing queued); a site
 * drops it with `"plugins": ["-scheduler"]`.
 */
export default definePlugin({
  name: 'scheduler',
  requires: ['inventory', 'agents', 'wol', 'groups'],
  schemaVersion: 1,
  import: { scheduler: schedulerImport },
  entities: [ProcedureEntity, ProcedureStepEntity, TaskEntity, TaskStepEntity, ScheduleEntity, ActionEntity],
  config: Type.Object(
    {
      /** A queued command not sent within this many seconds is marked failed (reference: 900). */
      pending_timeout_s: Type.Number({ default: 900, exclusiveMinimum: 0 }),
      /** How often delivery is retried to a connected client that still has commands queued. */
      retry_interval_s: Type.Number({ default: 30, exclusiveMinimum: 0 }),
    },
    { additionalProperties: false },
  ),
  register(ctx) {
    // Tests register a ManualClock under SchedulerClock before starting a server.
    ctx.service<Clock>(SchedulerClock, () => new SystemClock());
    const link = ctx.use(AgentLink);
    const inventory = ctx.use(Inventory);
    const scheduler = ctx.make(Scheduler);
    ctx.provide(Scheduler, scheduler);
    // A connecting agent is sent GET /refresh first; its queued commands follow the answer.
    ctx.events.on('agent.connected', ({ client }) => void setImmediate(() => scheduler.queue.connected(client)));
    link.onAnswer('refresh', (client) => {
      setImmediate(() => scheduler.queue.kick(client.ip));
    });
    // Agents another instance holds: their queued commands follow once they are idle there.
    ctx.events.on('agent.idle', ({ client }) => scheduler.queue.kick(client));
    const groups = ctx.use(Groups);
    schedulerRoutes(ctx.router, scheduler, inventory, groups);
    // A group a schedule's task runs on is not deleted from under it (a task no schedule runs is
    // not held: run by hand afterwards, it finds no PCs and says so).
    groups.usedBy(async (id, given) => {
      const em = ctx.db.unit(given);
      const tasks = await em.find(TaskEntity, { scopeType: 'group', scopeId: id }, { orderBy: { id: 'asc' } });
      if (tasks.length === 0) return [];
      const names = new Map(tasks.map((t) => [t.id, t.name]));
      const schedules = await em.find(ScheduleEntity, { kind: 'task', target: { $in: [...names.keys()] } }, { orderBy: { id: 'asc' } });
      return schedules.map((s) => `schedule '${s.name}' (${s.id}, task '${names.get(s.target)}')`);
    });
    auditSchedulerWrites(ctx);
    // One instance runs the schedules and delivers the queue; the others only write them.
    const reload = (ip?: string) =>
      void scheduler.reload(ip).catch((error: unknown) => ctx.log.error({ err: error }, 'scheduler reload failed'));
    ctx.cluster.on<string | null>('scheduler.changed', (ip) => reload(ip ?? undefined));
    ctx.cluster.onReconnect(() => reload());
    ctx.cluster.elected(
      'scheduler',
      () => scheduler.start(),
      () => scheduler.stop(),
    );
  },
});
