import type { EntityManager } from '@mikro-orm/core';
import { ProcedureEntity, ProcedureStepEntity } from './entities/procedure';
import { TaskEntity, TaskStepEntity } from './entities/task';

export type ProcedureStepView = { command: string; params: Record<string, unknown> } | { procedure: number };
export type TaskStepView = { procedure: number } | { task: number };

export interface ProcedureView {
  id: number;
  center: number;
  name: string;
  description: string;
  steps: ProcedureStepView[];
}

export interface TaskView {
  id: number;
  center: number;
  name: string;
  description: string;
  /** null: the task runs for no computers (as the reference's tasks). */
  scope: { type: string; id: number } | null;
  steps: TaskStepView[];
}

/** Steps by the id of what holds them, in the order given. */
function byOwner<S, V>(steps: S[], owner: (step: S) => number, view: (step: S) => V): Map<number, V[]> {
  const out = new Map<number, V[]>();
  for (const step of steps) {
    const list = out.get(owner(step)) ?? [];
    list.push(view(step));
    out.set(owner(step), list);
  }
  return out;
}

/** Every procedure with its steps in order: what /procedure/add stored (ogserve's own listing; the reference has none). */
export async function listProcedures(em: EntityManager): Promise<ProcedureView[]> {
  const procedures = await em.find(ProcedureEntity, {}, { orderBy: { id: 'asc' } });
  const steps = await em.find(ProcedureStepEntity, {}, { orderBy: { procedure: 'asc', ordinal: 'asc' } });
  const byProcedure = byOwner(
    steps,
    (step) => step.procedure.id,
    (step): ProcedureStepView =>
      step.subprocedure
        ? { procedure: step.subprocedure.id }
        : { command: step.command ?? '', params: JSON.parse(step.params ?? '{}') as Record<string, unknown> },
  );
  return procedures.map((p) => ({
    id: p.id,
    center: p.center.id,
    name: p.name,
    description: p.description,
    steps: byProcedure.get(p.id) ?? [],
  }));
}

/** Every task with its steps in order and its scope. */
export async function listTasks(em: EntityManager): Promise<TaskView[]> {
  const tasks = await em.find(TaskEntity, {}, { orderBy: { id: 'asc' } });
  const steps = await em.find(TaskStepEntity, {}, { orderBy: { task: 'asc', ordinal: 'asc' } });
  const byTask = byOwner(
    steps,
    (step) => step.task.id,
    (step): TaskStepView => (step.procedure ? { procedure: step.procedure.id } : { task: step.subtask!.id }),
  );
  return tasks.map((t) => ({
    id: t.id,
    center: t.center.id,
    name: t.name,
    description: t.description,
    scope: t.scopeType ? { type: t.scopeType, id: t.scopeId } : null,
    steps: byTask.get(t.id) ?? [],
  }));
}
