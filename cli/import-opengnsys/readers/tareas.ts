import type { LegacySource } from '../legacy-source';
import type { LegacyTask } from '../model';
import { int, text, textOrNull, type Row } from './values';

/** Tasks and their steps in execution order; a step naming neither a procedure nor a task does nothing in the reference and is not read. */
export async function readTasks(source: LegacySource): Promise<LegacyTask[]> {
  const tasks = new Map<number, LegacyTask>();
  const rows = await source.query<Row>('select idtarea, descripcion, idcentro, ambito, idambito, comentarios from tareas order by idtarea');
  for (const r of rows) {
    tasks.set(int(r.idtarea), {
      id: int(r.idtarea),
      name: text(r.descripcion),
      centerId: int(r.idcentro),
      scopeKind: int(r.ambito),
      scopeId: int(r.idambito),
      comment: textOrNull(r.comentarios),
      steps: [],
    });
  }
  const steps = await source.query<Row>(
    'select idtarea, idprocedimiento, tareaid from tareas_acciones order by idtarea, orden, idtareaaccion',
  );
  for (const r of steps) {
    const task = tasks.get(int(r.idtarea));
    if (!task) continue;
    if (int(r.tareaid) > 0) task.steps.push({ kind: 'task', taskId: int(r.tareaid) });
    else if (int(r.idprocedimiento) > 0) task.steps.push({ kind: 'procedure', procedureId: int(r.idprocedimiento) });
  }
  return [...tasks.values()];
}
