import type { EntityManager } from '@mikro-orm/core';
import { type Database, ErrorCode, badRequest, type Logger } from 'ogserve';
import type { Groups } from '../groups';
import type { ClientView, Inventory } from '../inventory';
import type { Clock } from './clock';
import { type StepCommands, oneClientMessage } from './commands';
import { ActionEntity, type Action } from './entities/action';
import { ProcedureStepEntity } from './entities/procedure';
import { TaskEntity, TaskStepEntity, type Task } from './entities/task';
import type { CommandQueue, QueuedAction } from './queue';
import type { WakeSteps } from './wake-steps';

/** Where queued actions came from, stored on each row. */
export interface Origin {
  taskId?: number;
  scheduleId?: number;
}

interface Command {
  command: string;
  params: string;
  procedureId: number;
}

/** An action just queued, with what it is: wake steps leave at once, the rest wait for the agent. */
export interface NewAction extends QueuedAction {
  command: string;
  params: string;
}

/**
 * The session value of one expansion (reference-behaviour.md 7.4): the id of the first
 * action it inserts, shared by every later action of the same expansion.
 */
export class Session {
  value = 0;
}

/**
 * Turns procedures, tasks and fired schedules into queued actions, then asks each client
 * concerned for GET /run/schedule so that delivery starts.
 */
export class Expander {
  constructor(
    private readonly db: Database,
    private readonly inventory: Inventory,
    private readonly groups: Pick<Groups, 'clients'>,
    private readonly queue: CommandQueue,
    private readonly commands: StepCommands,
    private readonly wakes: WakeSteps,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /**
   * Insert one action per (command, client), commands outer, with the session rule applied.
   * An image_create step for several clients (a task for a room) goes to the first only;
   * the others' rows are written failed, saying so.
   */
  async insertActions(
    em: EntityManager,
    commands: Command[],
    clients: ClientView[],
    session: Session,
    origin: Origin,
    state: 'queued' | 'waiting',
  ): Promise<NewAction[]> {
    const now = this.clock.now();
    const rows: Action[] = [];
    for (const command of commands) {
      for (const [index, client] of clients.entries()) {
        const refused = index > 0 && this.commands.oneClientOnly(command.command);
        const row = em.create(ActionEntity, {
          client: this.inventory.clientRef(em, client.id),
          ip: client.ip,
          session: session.value,
          command: command.command,
          params: command.params,
          state: refused ? 'done' : state,
          result: refused ? 'failure' : '',
          note: refused ? `${oneClientMessage}: only ${clients[0]!.ip} was sent this step` : '',
          queuedAt: state === 'queued' ? now : null,
          finishedAt: refused ? now : null,
          taskId: origin.taskId ?? 0,
          procedureId: command.procedureId,
          scheduleId: origin.scheduleId ?? 0,
        });
        if (session.value === 0) {
          await em.flush();
          session.value = row.id;
          row.session = row.id;
        }
        if (!refused) rows.push(row);
      }
    }
    await em.flush();
    return rows.map((r) => ({ id: r.id, ip: r.ip, queuedAt: now, command: r.command, params: r.params }));
  }

  /** The commands of a procedure in execution order, included procedures expanded in place. */
  async commandsOf(em: EntityManager, procedureId: number, path: number[] = []): Promise<Command[]> {
    if (path.includes(procedureId)) {
      // Refused when written; only rows from elsewhere can loop. Never expand forever.
      this.log.warn({ procedure: procedureId, path }, 'procedure includes itself; the loop is not expanded');
      return [];
    }
    const steps = await em.find(ProcedureStepEntity, { procedure: { id: procedureId } }, { orderBy: { ordinal: 'asc' } });
    const out: Command[] = [];
    for (const step of steps) {
      if (step.subprocedure) out.push(...(await this.commandsOf(em, step.subprocedure.id, [...path, procedureId])));
      else if (step.command) out.push({ command: step.command, params: step.params ?? '{}', procedureId });
    }
    return out;
  }

  /**
   * POST /procedure/run: queue the procedure for each client, one session, then start
   * delivery. Refused, writing nothing, when it would create an image from several clients.
   */
  async runProcedure(procedureId: number, clients: ClientView[]): Promise<number> {
    const session = new Session();
    const rows = await this.db.transactional(async (em) => {
      const commands = await this.commandsOf(em, procedureId);
      if (clients.length > 1 && commands.some((c) => this.commands.oneClientOnly(c.command))) {
        throw badRequest(ErrorCode.invalidField, `${oneClientMessage}; procedure ${procedureId} has an image_create step`, 'clients');
      }
      return this.insertActions(em, commands, clients, session, {}, 'queued');
    });
    await this.enqueue(
      rows,
      clients.map((c) => c.ip),
    );
    return session.value;
  }

  /** Fire a task: its steps in order, procedures for the task's scope; a nested task starts its own session. */
  async runTask(taskId: number, origin: Origin = {}): Promise<void> {
    const rows = await this.db.transactional((em) => this.expandTask(em, taskId, { ...origin, taskId }, []));
    await this.enqueue(rows, [...new Set(rows.map((r) => r.ip))]);
  }

  private async expandTask(em: EntityManager, taskId: number, origin: Origin, path: number[]): Promise<NewAction[]> {
    const task = await em.findOne(TaskEntity, { id: taskId });
    if (!task) {
      this.log.warn({ task: taskId }, 'scheduled task no longer exists');
      return [];
    }
    if (path.includes(taskId)) {
      this.log.warn({ task: taskId, path }, 'task includes itself; the loop is not expanded');
      return [];
    }
    const clients = await this.scope(em, task);
    if (clients.length === 0) this.log.warn({ task: taskId }, 'task has no computers in its scope; nothing queued');
    const session = new Session();
    const out: NewAction[] = [];
    const steps = await em.find(TaskStepEntity, { task: { id: taskId } }, { orderBy: { ordinal: 'asc' } });
    for (const step of steps) {
      if (step.subtask)
        out.push(...(await this.expandTask(em, step.subtask.id, { ...origin, taskId: step.subtask.id }, [...path, taskId])));
      else if (step.procedure && clients.length > 0)
        out.push(...(await this.insertActions(em, await this.commandsOf(em, step.procedure.id), clients, session, origin, 'queued')));
    }
    return out;
  }

  private async scope(em: EntityManager, task: Task): Promise<ClientView[]> {
    const type = task.scopeType;
    if (type === 'group') return this.groups.clients(task.scopeId, em);
    return type === '' ? [] : this.inventory.clientsInScope({ type, id: task.scopeId }, em);
  }

  /** Fire a procedure or command schedule: the actions of its session enter their clients' queues again. */
  async runSession(session: number, origin: Origin): Promise<void> {
    const now = this.clock.now();
    const rows = await this.db.transactional(async (em) => {
      const rows = await em.find(ActionEntity, { session, state: { $in: ['waiting', 'done'] } }, { orderBy: { id: 'asc' } });
      // A session from a task for a room holds image_create rows refused for all clients but one: they stay refused.
      const imageSource = rows.find((r) => this.commands.oneClientOnly(r.command))?.ip;
      const found = rows.filter((r) => !this.commands.oneClientOnly(r.command) || r.ip === imageSource);
      for (const row of found)
        Object.assign(row, {
          state: 'queued',
          result: '',
          note: '',
          queuedAt: now,
          finishedAt: null,
          scheduleId: origin.scheduleId ?? row.scheduleId,
        });
      await em.flush();
      return found.map((r) => ({ id: r.id, ip: r.ip, queuedAt: now, command: r.command, params: r.params }));
    });
    if (rows.length === 0) this.log.warn({ session }, 'scheduled session has no actions; nothing queued');
    await this.enqueue(rows, [...new Set(rows.map((r) => r.ip))]);
  }

  /** As the reference: wake packets first, then run/schedule to start the agents' queues. */
  private async enqueue(rows: NewAction[], ips: string[]): Promise<void> {
    await this.wakes.send(rows.filter((r) => r.command === 'wol'));
    this.queue.add(rows.filter((r) => r.command !== 'wol').map(({ id, ip, queuedAt }) => ({ id, ip, queuedAt })));
    if (ips.length > 0) await this.queue.runSchedule(ips);
  }
}
