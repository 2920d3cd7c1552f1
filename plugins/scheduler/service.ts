import type { EntityManager } from '@mikro-orm/core';
import {
  type PluginCluster,
  Database,
  ErrorCode,
  badRequest,
  inject,
  injectable,
  type Logger,
  PluginClusterView,
  PluginConfig,
  PluginEventBus,
  PluginLog,
  type PluginEvents,
} from 'ogserve';
import { AgentCommands, AgentLink } from '../agents';
import { Groups } from '../groups';
import { type ClientView, Inventory, SiteTime } from '../inventory';
import { Waker } from '../wol';
import { nextOccurrence, readYears, requireSomeTime, whenAt, type When } from './calendar';
import { type Clock, SchedulerClock } from './clock';
import { StepCommands, oneClientMessage } from './commands';
import { ActionEntity, type Action } from './entities/action';
import { ScheduleEntity, type Schedule, type ScheduleKind } from './entities/schedule';
import { TaskEntity } from './entities/task';
import { Expander, Session } from './expander';
import { CommandQueue } from './queue';
import type { WhenRequest } from './schemas';
import { Timeline, type TimelineEntry } from './timeline';
import { WakeSteps } from './wake-steps';

export interface ScheduleInput {
  kind: ScheduleKind;
  target: number;
  name: string;
  when?: WhenRequest;
  /** Left out: false on create, unchanged on update. */
  suspended?: boolean;
}

/** A schedule as POST /schedule/get shows it: the reference's keys, `years` as a list of years. */
export interface ScheduleView {
  id: number;
  task: number;
  name: string;
  type: ScheduleKind;
  years: number[];
  months: number;
  weeks: number;
  week_days: number;
  days: number;
  hours: number;
  am_pm: number;
  minutes: number;
  suspended: number;
  session: number;
  /** When it fires next (ms since 1970), if it still does. */
  next?: number;
}

/** A request's `when` in stored form, refused (400 naming the field) when it can never fire. */
export function readWhen(body: WhenRequest): When {
  const when: When = {
    years: readYears(body.years),
    months: body.months,
    weeks: body.weeks ?? 0,
    weekDays: body.week_days ?? 0,
    days: body.days,
    hours: body.hours,
    amPm: body.am_pm,
    minutes: body.minutes,
  };
  requireSomeTime(when);
  return when;
}

type ScheduleRow = Record<
  | 'id'
  | 'kind'
  | 'target'
  | 'name'
  | 'years'
  | 'months'
  | 'weeks'
  | 'week_days'
  | 'days'
  | 'hours'
  | 'am_pm'
  | 'minutes'
  | 'suspended'
  | 'session_id',
  unknown
>;

function yearsOf(stored: string): number[] {
  return stored.split(',').filter(Boolean).map(Number);
}

function whenOf(row: Schedule): When {
  return {
    years: yearsOf(row.years),
    months: row.months,
    weeks: row.weeks,
    weekDays: row.weekDays,
    days: row.days,
    hours: row.hours,
    amPm: row.amPm,
    minutes: row.minutes,
  };
}

/** The stored columns of a schedule's time. */
export function columnsOf(when: When): Pick<Schedule, 'years' | 'months' | 'weeks' | 'weekDays' | 'days' | 'hours' | 'amPm' | 'minutes'> {
  return {
    years: when.years.join(','),
    months: when.months,
    weeks: when.weeks,
    weekDays: when.weekDays,
    days: when.days,
    hours: when.hours,
    amPm: when.amPm,
    minutes: when.minutes,
  };
}

declare module 'ogserve' {
  interface EventMap {
    /** A schedule's time came: its task or procedure session is being queued. */
    'schedule.fired': ScheduleFired;
  }
}

export interface ScheduleFired {
  schedule: number;
  kind: TimelineEntry['kind'];
  target: number;
}

/**
 * The scheduler: schedules in the database, their next fire times in a timeline, and the
 * per-client queue of commands they produce. Exported for tests and for plugins that
 * want to queue work (through `expander`).
 */
/** The validated `scheduler` config section. */
export interface SchedulerSettings {
  pending_timeout_s: number;
  retry_interval_s: number;
}

@injectable()
export class Scheduler {
  /** The commands a step may queue: the enabled plugins' agent commands and `wol`. */
  readonly steps: StepCommands;
  readonly queue: CommandQueue;
  readonly expander: Expander;
  readonly timeline: Timeline;

  constructor(
    @inject(Database) private readonly db: Database,
    @inject(AgentLink) link: AgentLink,
    @inject(AgentCommands) agentCommands: AgentCommands,
    @inject(Inventory) inventory: Inventory,
    @inject(Groups) groups: Groups,
    @inject(Waker) waker: Pick<Waker, 'wake'>,
    @inject(SchedulerClock) readonly clock: Clock,
    @inject(PluginConfig) config: SchedulerSettings,
    @inject(PluginLog) private readonly log: Logger,
    @inject(PluginEventBus) private readonly events: Pick<PluginEvents, 'emit'>,
    @inject(PluginClusterView) private readonly cluster: Pick<PluginCluster, 'broadcast'>,
    /** The site's clock: a schedule's 07:45 is 07:45 there, as a power calendar's is. */
    @inject(SiteTime) private readonly site: Pick<SiteTime, 'zone'>,
  ) {
    const timings = { pendingTimeoutMs: config.pending_timeout_s * 1000, retryMs: config.retry_interval_s * 1000 };
    this.steps = new StepCommands(agentCommands);
    this.queue = new CommandQueue(db, link, this.steps, clock, timings, log, (ip) => this.changed(ip));
    this.expander = new Expander(db, inventory, groups, this.queue, this.steps, new WakeSteps(db, waker, clock, log), clock, log);
    this.timeline = new Timeline(clock, (entry) => this.fire(entry), log, site.zone);
  }

  /** Whether this instance runs the schedules and the queue (it holds the scheduler role). */
  private active = false;

  /** Start-up: resume queued commands, then arm every schedule from now on (past times skipped). */
  async start(em?: EntityManager): Promise<void> {
    this.active = true;
    await this.queue.load();
    const rows = await this.db.unit(em).find(ScheduleEntity, { suspended: false }, { orderBy: { id: 'asc' } });
    const now = this.clock.now();
    for (const row of rows) this.timeline.set({ id: row.id, kind: row.kind, target: row.target, when: whenOf(row) }, now);
    this.log.info({ schedules: rows.length, queued: this.queue.pendingIps().length }, 'scheduler started');
  }

  async stop(): Promise<void> {
    this.active = false;
    this.timeline.stop();
    await this.queue.stop();
  }

  /**
   * Schedules or queued actions changed here while another instance runs them (or `ip` is
   * ready for its queued commands): that one reads them again.
   */
  private changed(ip?: string): void {
    this.cluster.broadcast('scheduler.changed', ip ?? null);
  }

  /**
   * Another instance changed schedules or actions: arm what is new or changed, drop what
   * went, then try the clients. With `ip` (a client it saw connect or answer a refresh),
   * only that client is tried: what is queued for it was read here when it was queued, and
   * agents connecting elsewhere by the hundred must not each cost a reading of every
   * schedule and queued action (the scheduler is on by default).
   */
  async reload(ip?: string, em?: EntityManager): Promise<void> {
    if (!this.active) return;
    if (ip) {
      this.queue.kick(ip);
      return;
    }
    const rows = await this.db.unit(em).find(ScheduleEntity, { suspended: false }, { orderBy: { id: 'asc' } });
    const now = this.clock.now();
    for (const row of rows) {
      const when = whenOf(row);
      if (!this.timeline.holds(row.id, when)) this.timeline.set({ id: row.id, kind: row.kind, target: row.target, when }, now);
    }
    this.timeline.keepOnly(new Set(rows.map((r) => r.id)));
    await this.queue.refresh();
  }

  async createSchedule(input: ScheduleInput, given?: EntityManager): Promise<number> {
    await this.requireTarget(input.kind, input.target, given);
    const now = this.clock.now();
    const when = input.when ? readWhen(input.when) : whenAt(now, this.site.zone);
    const em = this.db.unit(given);
    const row = em.create(ScheduleEntity, {
      kind: input.kind,
      target: input.target,
      name: input.name,
      ...columnsOf(when),
      suspended: input.suspended ?? false,
      session: input.kind === 'command' ? input.target : 0,
    });
    await em.flush();
    await this.arm(row, when, input.when !== undefined);
    return row.id;
  }

  async updateSchedule(id: number, input: Omit<ScheduleInput, 'kind'> & { kind?: ScheduleKind }, given?: EntityManager): Promise<void> {
    const em = this.db.unit(given);
    const row = await em.findOne(ScheduleEntity, { id });
    if (!row) throw badRequest(ErrorCode.unknownId, `no schedule with id ${id}`, 'id');
    const kind = input.kind ?? row.kind;
    await this.requireTarget(kind, input.target, em);
    const when = input.when ? readWhen(input.when) : whenAt(this.clock.now(), this.site.zone);
    Object.assign(row, {
      kind,
      target: input.target,
      name: input.name,
      ...columnsOf(when),
      suspended: input.suspended ?? row.suspended,
      session: kind === 'command' ? input.target : 0,
    });
    await em.flush();
    await this.arm(row, when, input.when !== undefined);
  }

  /** 200 even for an unknown id, as the reference. */
  async deleteSchedule(id: number, em?: EntityManager): Promise<void> {
    await this.db.unit(em).nativeDelete(ScheduleEntity, { id });
    if (this.active) this.timeline.remove(id);
    else this.changed();
  }

  /** POST /schedule/get: plain SQL, as consoles poll it and entity hydration costs most of the time. */
  async schedules(filter: { id?: number; target?: number }): Promise<ScheduleView[]> {
    const where: string[] = [];
    const params: number[] = [];
    if (filter.id !== undefined) {
      where.push('id = ?');
      params.push(filter.id);
    }
    if (filter.target !== undefined) {
      where.push('target = ?');
      params.push(filter.target);
    }
    const rows = await this.db.query<ScheduleRow>(
      `select id, kind, target, name, years, months, weeks, week_days, days, hours, am_pm, minutes, suspended, session_id from schedules${
        where.length ? ` where ${where.join(' and ')}` : ''
      } order by id`,
      params,
    );
    const now = this.clock.now();
    return rows.map((row) => {
      const id = Number(row.id);
      const when: When = {
        years: yearsOf(String(row.years)),
        months: Number(row.months),
        weeks: Number(row.weeks),
        weekDays: Number(row.week_days),
        days: Number(row.days),
        hours: Number(row.hours),
        amPm: Number(row.am_pm),
        minutes: Number(row.minutes),
      };
      // Where the schedules are not run (another instance runs them), the next time is computed from the row.
      const next = this.active
        ? this.timeline.nextOf(id)
        : row.suspended
          ? undefined
          : (nextOccurrence(when, now, this.site.zone) ?? undefined);
      return {
        id,
        task: Number(row.target),
        name: String(row.name),
        type: row.kind as ScheduleKind,
        years: when.years,
        months: when.months,
        weeks: when.weeks,
        week_days: when.weekDays,
        days: when.days,
        hours: when.hours,
        am_pm: when.amPm,
        minutes: when.minutes,
        suspended: row.suspended ? 1 : 0,
        session: Number(row.session_id),
        ...(next === undefined ? {} : { next }),
      };
    });
  }

  /**
   * POST /schedule/command: one waiting action per client, all with the session value of
   * the first, and a `command` schedule whose target is that session.
   */
  async scheduleCommand(
    clients: ClientView[],
    command: string,
    params: unknown,
    whenBody: WhenRequest | undefined,
  ): Promise<{ id: number; session: number }> {
    const checked = this.steps.check(command, params, 'command', 'params');
    if (clients.length > 1 && this.steps.oneClientOnly(command)) throw badRequest(ErrorCode.invalidField, oneClientMessage, 'clients');
    const now = this.clock.now();
    const when = whenBody ? readWhen(whenBody) : whenAt(now, this.site.zone);
    const session = new Session();
    const row = await this.db.transactional(async (em) => {
      await this.expander.insertActions(
        em,
        [{ command, params: JSON.stringify(checked), procedureId: 0 }],
        clients,
        session,
        {},
        'waiting',
      );
      const schedule = em.create(ScheduleEntity, {
        kind: 'command',
        target: session.value,
        name: command,
        ...columnsOf(when),
        suspended: false,
        session: session.value,
      });
      await em.flush();
      await em.nativeUpdate(ActionEntity, { session: session.value }, { scheduleId: schedule.id });
      return schedule;
    });
    await this.arm(row, when, whenBody !== undefined);
    return { id: row.id, session: session.value };
  }

  /** Every action, for tests and diagnostics. */
  async actions(where: Partial<Pick<Action, 'session' | 'ip' | 'state'>> = {}, em?: EntityManager): Promise<Action[]> {
    return this.db.unit(em).find(ActionEntity, where, { orderBy: { id: 'asc' } });
  }

  /**
   * With a `when`, fire at its next occurrence from now on; without one the reference
   * stores the current minute and fires at once. A suspended schedule is disarmed, never
   * fired: resuming it arms it from then on, times that passed meanwhile skipped.
   */
  private async arm(row: Schedule, when: When, hasWhen: boolean): Promise<void> {
    const entry = { id: row.id, kind: row.kind, target: row.target, when };
    if (row.suspended || hasWhen) {
      if (!this.active) this.changed();
      else if (row.suspended) this.timeline.remove(row.id);
      else this.timeline.set(entry, this.clock.now());
      return;
    }
    this.timeline.remove(row.id);
    await this.fire({ ...entry, at: this.clock.now() });
  }

  private async requireTarget(kind: ScheduleKind, target: number, given?: EntityManager): Promise<void> {
    const em = this.db.unit(given);
    if (kind === 'task') {
      if (!(await em.findOne(TaskEntity, { id: target }))) throw badRequest(ErrorCode.unknownId, `no task with id ${target}`, 'task');
    } else if ((await em.count(ActionEntity, { session: target })) === 0) {
      throw badRequest(ErrorCode.unknownId, `no queued actions with session ${target}`, 'task');
    }
  }

  private async fire(entry: TimelineEntry): Promise<void> {
    this.log.info({ schedule: entry.id, kind: entry.kind, target: entry.target }, 'schedule fired');
    void this.events.emit('schedule.fired', { schedule: entry.id, kind: entry.kind, target: entry.target });
    if (entry.kind === 'task') await this.expander.runTask(entry.target, { scheduleId: entry.id });
    else await this.expander.runSession(entry.target, { scheduleId: entry.id });
  }
}
