import { bundledParts } from '../parts';
import type { LegacyTask } from '../model';
import { refusalOf } from './body-check';
import { alreadyThere, idRefusal, keep, label, type Planning, refuse } from './context';
import type { TaskRecord } from './records';
import { decideWithIncludes } from './scheduler-steps';

const { TaskAdd } = bundledParts.scheduler.bodies;

const table = 'tareas';
const columns = { name: 'descripcion', description: 'comentarios' };

/** The reference's scope kinds (ogAdmLib.h AMBITO_*) ogserve's tasks run for. */
const scopeKinds: Record<number, 'center' | 'room' | 'client'> = { 1: 'center', 4: 'room', 16: 'client' };
const folderKinds: Record<number, string> = { 2: 'a room folder', 8: 'a computer folder' };

/**
 * Tasks, by POST /task/add's rules, run for a center, a room or a computer as the reference
 * ran them. A task whose scope ogserve cannot express (a folder), whose scope or steps name
 * something refused, or that includes itself, is refused.
 */
export function planTasks(p: Planning): void {
  p.ledger.read(table, p.site.tasks.length);
  const candidates: (LegacyTask & { row: string; scope?: TaskRecord['scope'] })[] = [];
  for (const task of p.site.tasks) {
    if (alreadyThere(p, p.tasks, table, task.id, p.rules.held.tasks)) continue;
    const row = label(table, task.id, task.name);
    const kind = scopeKinds[task.scopeKind];
    const scope = kind ? { type: kind, id: task.scopeId } : undefined;
    const body = { center: task.centerId, name: task.name, description: task.comment ?? '', ...(scope ? { scope } : {}) };
    const reason =
      idRefusal(task.id) ?? p.centers.whyNot(task.centerId) ?? refusalOf(TaskAdd, body, columns, table) ?? scopeRefusal(p, task);
    if (reason !== undefined) refuse(p, p.tasks, table, row, task.id, reason);
    else candidates.push({ ...task, row, scope });
  }
  decideWithIncludes(
    table,
    candidates,
    (task) => task.steps.flatMap((s) => (s.kind === 'task' ? [s.taskId] : [])),
    (task, refusal) => {
      let reason = refusal;
      for (const [i, step] of task.steps.entries()) {
        if (reason !== undefined) break;
        const why = step.kind === 'task' ? p.tasks.whyNot(step.taskId) : p.procedures.whyNot(step.procedureId);
        if (why !== undefined) reason = `steps[${i}] names a ${step.kind} ogserve will not have: ${why}`;
      }
      if (reason !== undefined) {
        refuse(p, p.tasks, table, task.row, task.id, reason);
        return;
      }
      p.plan.tasks.push(
        keep(p, p.tasks, table, task.id, {
          id: task.id,
          centerId: task.centerId,
          name: task.name,
          description: task.comment ?? '',
          ...(task.scope ? { scope: task.scope } : {}),
          steps: task.steps.map((s) => (s.kind === 'task' ? { task: s.taskId } : { procedure: s.procedureId })),
        }),
      );
    },
  );
}

function scopeRefusal(p: Planning, task: LegacyTask): string | undefined {
  if (task.scopeKind === 0) return undefined;
  const folder = folderKinds[task.scopeKind];
  if (folder) return `its scope is ${folder} (tareas.ambito = ${task.scopeKind}): ogserve runs a task for a center, a room or a computer`;
  const kind = scopeKinds[task.scopeKind];
  if (!kind) return `tareas.ambito = ${task.scopeKind} is no scope kind the reference knows`;
  const decided = kind === 'center' ? p.centers : kind === 'room' ? p.rooms : p.clients;
  const why = decided.whyNot(task.scopeId);
  return why === undefined ? undefined : `its scope leads nowhere: ${why}`;
}
