import type { EntityManager } from '@mikro-orm/core';
import { ErrorCode, badRequest, toInt } from 'ogserve';
import { SchedulerError, type StepCommands } from './commands';
import { ProcedureEntity, ProcedureStepEntity, type Procedure } from './entities/procedure';
import { TaskEntity, TaskStepEntity, type ScopeType, type Task } from './entities/task';
import type { Inventory } from '../inventory';
import type { StepBody } from './schemas';

/**
 * Procedures and tasks: everything is checked before anything is written (the reference
 * writes the parent row first and then fails on a bad step), and each write is one
 * transaction.
 */
export type CheckedStep = { command: string; params: Record<string, unknown> } | { procedure: number } | { task: number };

export interface ProcedureInput {
  center: number;
  name: string;
  description: string;
  steps: StepBody[];
}

export interface TaskInput extends ProcedureInput {
  scope?: { type: Exclude<ScopeType, ''>; id: number };
}

async function requireCenter(inventory: Inventory, em: EntityManager, id: number): Promise<void> {
  if (!(await inventory.scopeExists({ type: 'center', id }, em)))
    throw badRequest(ErrorCode.unknownId, `no center with id ${id}`, 'center');
}

export async function requireProcedure(em: EntityManager, id: number, field: string): Promise<Procedure> {
  const procedure = await em.findOne(ProcedureEntity, { id });
  if (!procedure) throw badRequest(ErrorCode.unknownId, `no procedure with id ${id}`, field);
  return procedure;
}

export async function requireTask(em: EntityManager, id: number, field: string): Promise<Task> {
  const task = await em.findOne(TaskEntity, { id });
  if (!task) throw badRequest(ErrorCode.unknownId, `no task with id ${id}`, field);
  return task;
}

/** The procedures `from` includes, directly or through others (its own id excluded unless it loops). */
async function includedProcedures(em: EntityManager, from: number): Promise<Set<number>> {
  const seen = new Set<number>();
  let frontier = [from];
  while (frontier.length > 0) {
    const steps = await em.find(
      ProcedureStepEntity,
      { procedure: { $in: frontier }, subprocedure: { $ne: null } },
      { fields: ['subprocedure'] },
    );
    frontier = [];
    for (const step of steps) {
      const id = step.subprocedure!.id;
      if (!seen.has(id)) {
        seen.add(id);
        frontier.push(id);
      }
    }
  }
  return seen;
}

function stepKind(
  step: StepBody,
  i: number,
  allowed: ('command' | 'procedure' | 'task')[],
  owner: string,
): 'command' | 'procedure' | 'task' {
  const present = (['command', 'procedure', 'task'] as const).filter((k) => step[k] !== undefined);
  if (present.length !== 1) {
    throw badRequest(ErrorCode.invalidField, `'steps[${i}]' must have exactly one of ${allowed.join(', ')}`, `steps[${i}]`);
  }
  const kind = present[0]!;
  if (!allowed.includes(kind)) throw badRequest(ErrorCode.invalidField, `a ${owner} step cannot be a ${kind}`, `steps[${i}].${kind}`);
  return kind;
}

/** Check a procedure's steps; `self` is the procedure being updated, which no step may lead back to. */
export async function checkProcedureSteps(
  em: EntityManager,
  commands: StepCommands,
  steps: StepBody[],
  self?: number,
): Promise<CheckedStep[]> {
  const out: CheckedStep[] = [];
  for (const [i, step] of steps.entries()) {
    if (stepKind(step, i, ['command', 'procedure'], 'procedure') === 'command') {
      out.push({ command: step.command!, params: commands.check(step.command!, step.params, `steps[${i}].command`, `steps[${i}].params`) });
      continue;
    }
    const field = `steps[${i}].procedure`;
    const id = toInt(step.procedure!);
    await requireProcedure(em, id, field);
    if (self !== undefined && (id === self || (await includedProcedures(em, id)).has(self))) {
      throw badRequest(
        SchedulerError.cycle,
        `procedure ${id} includes procedure ${self}, directly or through others: a procedure cannot include itself`,
        field,
      );
    }
    out.push({ procedure: id });
  }
  return out;
}

async function checkTaskSteps(em: EntityManager, steps: StepBody[]): Promise<CheckedStep[]> {
  const out: CheckedStep[] = [];
  for (const [i, step] of steps.entries()) {
    if (stepKind(step, i, ['procedure', 'task'], 'task') === 'procedure') {
      const id = toInt(step.procedure!);
      await requireProcedure(em, id, `steps[${i}].procedure`);
      out.push({ procedure: id });
    } else {
      // A new task cannot be included by anything yet, so including existing tasks cannot loop.
      const id = toInt(step.task!);
      await requireTask(em, id, `steps[${i}].task`);
      out.push({ task: id });
    }
  }
  return out;
}

async function refuseDuplicateName(em: EntityManager, center: number, name: string, except?: number): Promise<void> {
  const other = await em.findOne(ProcedureEntity, {
    center: { id: center },
    name,
    ...(except === undefined ? {} : { id: { $ne: except } }),
  });
  if (other) throw badRequest(ErrorCode.duplicate, `center ${center} already has a procedure named '${name}' (id ${other.id})`, 'name');
}

function writeProcedureSteps(em: EntityManager, procedure: Procedure, steps: CheckedStep[]): void {
  for (const [ordinal, step] of steps.entries()) {
    em.create(ProcedureStepEntity, {
      procedure,
      ordinal,
      ...('command' in step
        ? { command: step.command, params: JSON.stringify(step.params) }
        : { subprocedure: em.getReference(ProcedureEntity, (step as { procedure: number }).procedure) }),
    });
  }
}

export async function addProcedure(
  inventory: Inventory,
  commands: StepCommands,
  em: EntityManager,
  input: ProcedureInput,
): Promise<number> {
  await requireCenter(inventory, em, input.center);
  await refuseDuplicateName(em, input.center, input.name);
  const steps = await checkProcedureSteps(em, commands, input.steps);
  return em.transactional(async (tx) => {
    const procedure = tx.create(ProcedureEntity, {
      name: input.name,
      description: input.description,
      center: inventory.centerRef(tx, input.center),
    });
    await tx.flush();
    writeProcedureSteps(tx, procedure, steps);
    await tx.flush();
    return procedure.id;
  });
}

export async function updateProcedure(
  inventory: Inventory,
  commands: StepCommands,
  em: EntityManager,
  id: number,
  input: ProcedureInput,
): Promise<void> {
  const procedure = await requireProcedure(em, id, 'procedure');
  await requireCenter(inventory, em, input.center);
  await refuseDuplicateName(em, input.center, input.name, id);
  const steps = await checkProcedureSteps(em, commands, input.steps, id);
  await em.transactional(async (tx) => {
    const row = tx.merge(ProcedureEntity, procedure);
    Object.assign(row, { name: input.name, description: input.description, center: inventory.centerRef(tx, input.center) });
    await tx.nativeDelete(ProcedureStepEntity, { procedure: { id } });
    writeProcedureSteps(tx, row, steps);
    await tx.flush();
  });
}

/** 200 even when no procedure has that id (spec: Errors). */
export async function deleteProcedure(em: EntityManager, id: number): Promise<void> {
  await em.nativeDelete(ProcedureEntity, { id });
}

export async function addTask(inventory: Inventory, em: EntityManager, input: TaskInput): Promise<number> {
  await requireCenter(inventory, em, input.center);
  const steps = await checkTaskSteps(em, input.steps);
  return em.transactional(async (tx) => {
    const task = tx.create(TaskEntity, {
      name: input.name,
      description: input.description,
      center: inventory.centerRef(tx, input.center),
      scopeType: input.scope?.type ?? '',
      scopeId: input.scope?.id ?? 0,
    });
    await tx.flush();
    for (const [ordinal, step] of steps.entries()) {
      tx.create(TaskStepEntity, {
        task,
        ordinal,
        ...('procedure' in step
          ? { procedure: tx.getReference(ProcedureEntity, step.procedure) }
          : { subtask: tx.getReference(TaskEntity, (step as { task: number }).task) }),
      });
    }
    await tx.flush();
    return task.id;
  });
}
