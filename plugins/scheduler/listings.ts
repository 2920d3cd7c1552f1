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

/** Every procedure with its steps in order: what /procedure/add stored (ogserve's own listing; the reference has none). */
export async function listProcedures(em: EntityManager): Promise<ProcedureView[]> {
  const procedures = await em.find(ProcedureEntity, {}, { orderBy: { id: 'asc' } });
  const steps = await em.find(ProcedureStepEntity, {}, { orderBy: { procedure: 'asc', ordinal: 'asc' } });
  const byProcedure = new Map<number, ProcedureStepView[]>();
  for (const step of steps) {
    const list = byProcedure.get(step.procedure.id) ?? [];
    list.push(
      step.subprocedure
        ? { procedure: step.subprocedure.id }
        : { command: step.command ?? '', params: JSON.parse(step.params ?? '{}') as Record<string, unknown> },
    );
    byProcedure.set(step.procedure.id, list);
  }
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
  const byTask = new Map<number, TaskStepView[]>();
  for (const step of steps) {
    const list = byTask.get(step.task.id) ?? [];
    list.push(step.procedure ? { procedure: step.procedure.id } : { task: step.subtask!.id });
    byTask.set(step.task.id, list);
  }
  return tasks.map((t) => ({
    id: t.id,
    center: t.center.id,
    name: t.name,
    description: t.description,
    scope: t.scopeType ? { type: t.scopeType, id: t.scopeId } : null,
    steps: byTask.get(t.id) ?? [],
  }));
}
