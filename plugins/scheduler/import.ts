import type { EntityManager } from '@mikro-orm/core';
import { execute, insertInChunks, type Database } from 'ogserve';
import type { When } from './calendar';
import { columnsOf } from './service';

/** Procedures, tasks and schedules brought from another system, under the ids they had there. */
export interface ImportedProcedure {
  id: number;
  centerId: number;
  name: string;
  description: string;
  /** A command step (checked by the rules of its REST call) or an included procedure. */
  steps: ({ command: string; params: Record<string, unknown> } | { procedure: number })[];
}

export interface ImportedTask {
  id: number;
  centerId: number;
  name: string;
  description: string;
  scope?: { type: 'center' | 'room' | 'client'; id: number };
  steps: ({ procedure: number } | { task: number })[];
}

export interface ImportedSchedule {
  id: number;
  kind: 'task' | 'procedure' | 'command';
  target: number;
  name: string;
  when: When;
  suspended: boolean;
  session: number;
  /** The waiting actions a command or procedure schedule fires. */
  actions: { clientId: number; ip: string; session: number; command: string; params: Record<string, unknown> }[];
}

export interface ImportedSchedulerRecords {
  procedures: ImportedProcedure[];
  tasks: ImportedTask[];
  schedules: ImportedSchedule[];
}

/** The ids already stored, and each procedure's center and name (unique within a center). */
export interface SchedulerHoldings {
  procedures: Map<number, { centerId: number; name: string }>;
  tasks: Set<number>;
  schedules: Set<number>;
}

export async function schedulerHoldings(em: EntityManager): Promise<SchedulerHoldings> {
  const rows = (sql: string) => execute<Record<string, string | number>>(em, sql);
  return {
    procedures: new Map(
      (await rows('select id, center_id, name from procedures')).map((r) => [
        Number(r.id),
        { centerId: Number(r.center_id), name: String(r.name) },
      ]),
    ),
    tasks: new Set((await rows('select id from tasks')).map((r) => Number(r.id))),
    schedules: new Set((await rows('select id from schedules')).map((r) => Number(r.id))),
  };
}

/**
 * Write imported procedures, tasks and schedules with their steps and waiting actions in
 * the caller's transaction, keeping their ids. Steps may include procedures or tasks of
 * this import written after them: every row goes in before any step that names one.
 */
export async function writeScheduler(db: Database, em: EntityManager, records: ImportedSchedulerRecords): Promise<void> {
  await insertInChunks(
    em,
    'Procedure',
    records.procedures.map((p) => ({ id: p.id, name: p.name, description: p.description, center: p.centerId })),
  );
  await insertInChunks(
    em,
    'Task',
    records.tasks.map((t) => ({
      id: t.id,
      name: t.name,
      description: t.description,
      center: t.centerId,
      scopeType: t.scope?.type ?? '',
      scopeId: t.scope?.id ?? 0,
    })),
  );
  await insertInChunks(
    em,
    'ProcedureStep',
    records.procedures.flatMap((p) =>
      p.steps.map((step, ordinal) =>
        'procedure' in step
          ? { procedure: p.id, ordinal, subprocedure: step.procedure }
          : { procedure: p.id, ordinal, command: step.command, params: JSON.stringify(step.params) },
      ),
    ),
  );
  await insertInChunks(
    em,
    'TaskStep',
    records.tasks.flatMap((t) =>
      t.steps.map((step, ordinal) =>
        'procedure' in step ? { task: t.id, ordinal, procedure: step.procedure } : { task: t.id, ordinal, subtask: step.task },
      ),
    ),
  );
  await db.restartIdSequences(em, ['Procedure', 'Task']);
  // A session is the id of its first action, as when ogserve queues one: a session kept
  // from elsewhere could meet one ogserve numbers later, and fire its actions too.
  const sessions = new Map<number, number>();
  for (const schedule of records.schedules) {
    let session = 0;
    for (const a of schedule.actions) {
      const id = Number(
        await em.insert('Action', {
          client: a.clientId,
          ip: a.ip,
          session,
          command: a.command,
          params: JSON.stringify(a.params),
          state: 'waiting',
          scheduleId: schedule.id,
        }),
      );
      if (session === 0) {
        session = id;
        await em.nativeUpdate('Action', { id }, { session });
      }
    }
    if (session !== 0) sessions.set(schedule.id, session);
  }
  await insertInChunks(
    em,
    'Schedule',
    records.schedules.map((s) => {
      const session = sessions.get(s.id);
      return {
        id: s.id,
        kind: s.kind,
        // A command or procedure schedule fires the actions of the session it names.
        target: session !== undefined && s.kind !== 'task' ? session : s.target,
        name: s.name,
        ...columnsOf(s.when),
        suspended: s.suspended,
        session: session ?? s.session,
      };
    }),
  );
  await db.restartIdSequences(em, ['Schedule']);
}
