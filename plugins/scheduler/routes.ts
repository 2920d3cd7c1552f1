import type { EntityManager } from '@mikro-orm/core';
import { ErrorCode, badRequest, type RouteRegistrar, toInt } from 'ogserve';
import { DispatchAnswer } from '../agents';
import type { Groups } from '../groups';
import { Created, Done, type Inventory, type ScopeRef } from '../inventory';
import { addProcedure, addTask, deleteProcedure, requireProcedure, requireTask, updateProcedure } from './catalogue';
import { listProcedures, listTasks } from './listings';
import {
  IdBody,
  ProcedureAdd,
  ProcedureListing,
  ProcedureRun,
  ProcedureUpdate,
  RunSchedule,
  ScheduleCommand,
  ScheduledCommand,
  ScheduleListing,
  SessionAnswer,
  ScheduleCreate,
  ScheduleGet,
  ScheduleUpdate,
  TaskAdd,
  TaskListing,
  TaskRun,
} from './schemas';
import type { Scheduler } from './service';

async function requireScope(
  inventory: Inventory,
  groups: Groups,
  em: EntityManager,
  scope: ScopeRef | { type: 'group'; id: number },
): Promise<void> {
  const exists = scope.type === 'group' ? (await groups.get(scope.id, em)) !== null : await inventory.scopeExists(scope, em);
  if (!exists) throw badRequest(ErrorCode.unknownId, `no ${scope.type} with id ${scope.id}`, 'scope.id');
}

/** `suspended` as sent (1 or true, 0 or false), or undefined when left out. */
const suspendedOf = (value: boolean | 0 | 1 | undefined) => (value === undefined ? undefined : Boolean(value));

/** The scheduling endpoints of earlier releases, in the reference's request shapes. */
export function schedulerRoutes(router: RouteRegistrar, scheduler: Scheduler, inventory: Inventory, groups: Groups): void {
  router.post(
    '/procedure/add',
    { permission: 'admin', body: ProcedureAdd, response: Created, summary: 'Add a procedure' },
    async ({ body, em }) => ({
      id: await addProcedure(inventory, scheduler.steps, em, {
        center: toInt(body.center),
        name: body.name,
        description: body.description ?? '',
        steps: body.steps ?? [],
      }),
    }),
  );

  router.post(
    '/procedure/update',
    { permission: 'admin', body: ProcedureUpdate, response: Done, summary: "Replace a procedure's steps" },
    async ({ body, em }) => {
      await updateProcedure(inventory, scheduler.steps, em, toInt(body.procedure), {
        center: toInt(body.center),
        name: body.name,
        description: body.description ?? '',
        steps: body.steps ?? [],
      });
    },
  );

  router.post(
    '/procedure/delete',
    { permission: 'admin', body: IdBody, response: Done, summary: 'Delete a procedure' },
    async ({ body, em }) => {
      await deleteProcedure(em, toInt(body.id));
    },
  );

  router.post(
    '/procedure/run',
    { permission: 'admin', clients: 'clients', body: ProcedureRun, response: SessionAnswer, summary: 'Run a procedure on clients now' },
    async ({ body, em }) => {
      const procedure = await requireProcedure(em, toInt(body.procedure), 'procedure');
      const clients = await inventory.requireClients(body.clients);
      return { session: await scheduler.expander.runProcedure(procedure.id, clients) };
    },
  );

  router.post('/task/add', { permission: 'admin', body: TaskAdd, response: Created, summary: 'Add a task' }, async ({ body, em }) => {
    const scope = body.scope && { type: body.scope.type, id: toInt(body.scope.id) };
    if (scope) await requireScope(inventory, groups, em, scope);
    return {
      id: await addTask(inventory, em, {
        center: toInt(body.center),
        name: body.name,
        description: body.description ?? '',
        steps: body.steps ?? [],
        scope,
      }),
    };
  });

  router.post(
    '/task/run',
    { permission: 'admin', body: TaskRun, response: Done, summary: 'Run a task on its scope now' },
    async ({ body, em }) => {
      const task = await requireTask(em, toInt(body.task), 'task');
      await scheduler.expander.runTask(task.id);
    },
  );

  router.post(
    '/schedule/command',
    {
      permission: 'admin',
      clients: 'clients',
      body: ScheduleCommand,
      response: ScheduledCommand,
      summary: 'Run a command on clients later',
    },
    async ({ body }) => {
      const clients = await inventory.requireClients(body.clients);
      return scheduler.scheduleCommand(clients, body.command, body.params, body.when);
    },
  );

  router.post(
    '/schedule/create',
    { permission: 'admin', body: ScheduleCreate, response: Created, summary: 'Add a schedule' },
    async ({ body, em }) => ({
      id: await scheduler.createSchedule(
        {
          kind: body.type,
          target: toInt(body.task),
          name: body.name,
          when: body.when,
          suspended: suspendedOf(body.suspended),
        },
        em,
      ),
    }),
  );

  router.post(
    '/schedule/update',
    { permission: 'admin', body: ScheduleUpdate, response: Done, summary: 'Change a schedule' },
    async ({ body, em }) => {
      await scheduler.updateSchedule(
        toInt(body.id),
        {
          kind: body.type,
          target: toInt(body.task),
          name: body.name,
          when: body.when,
          suspended: suspendedOf(body.suspended),
        },
        em,
      );
    },
  );

  router.post(
    '/schedule/delete',
    { permission: 'admin', body: IdBody, response: Done, summary: 'Delete a schedule' },
    async ({ body, em }) => {
      await scheduler.deleteSchedule(toInt(body.id), em);
    },
  );

  // POST, as the reference: the filter travels in the body, which may be absent.
  const listing = {
    permission: 'read',
    body: ScheduleGet,
    bodyPolicy: 'optional',
    response: ScheduleListing,
    summary: 'List schedules',
  } as const;
  router.post('/schedule/get', listing, async ({ body }) => ({
    schedule: await scheduler.schedules({
      id: body?.id === undefined ? undefined : toInt(body.id),
      target: body?.task === undefined ? undefined : toInt(body.task),
    }),
  }));

  const run = {
    permission: 'admin',
    clients: 'clients',
    body: RunSchedule,
    response: DispatchAnswer,
    summary: 'Send clients their queued scheduled commands',
  } as const;
  // ogserve's own: the reference has no listing of procedures and tasks (its console reads its database).
  router.get(
    '/procedures',
    { permission: 'read', bodyPolicy: 'ignored', response: ProcedureListing, summary: 'Every procedure with its steps' },
    async ({ em }) => ({ procedures: await listProcedures(em) }),
  );
  router.get(
    '/tasks',
    { permission: 'read', bodyPolicy: 'ignored', response: TaskListing, summary: 'Every task with its steps and scope' },
    async ({ em }) => ({ tasks: await listTasks(em) }),
  );

  router.post('/run/schedule', run, async ({ body }) => ({ clients: (await scheduler.queue.runSchedule(body.clients)).outcomes }));
}
