import { EntitySchema } from '@mikro-orm/core';
import type { Procedure } from './procedure';
import { type Center, CenterEntity } from '../../inventory';

/** Which computers a task's procedures are queued for (a `group`: the saved group's PCs when it runs). */
export type ScopeType = '' | 'center' | 'room' | 'client' | 'group';

/**
 * A named list of procedures and other tasks within a center, run for its scope.
 * Deleting a procedure or task deletes the steps that include it.
 */
export interface Task {
  id: number;
  name: string;
  description: string;
  center: Center;
  /** '' = no computers (the reference never sets a task's scope). */
  scopeType: ScopeType;
  scopeId: number;
}

export interface TaskStep {
  id: number;
  task: Task;
  ordinal: number;
  procedure?: Procedure | null;
  subtask?: Task | null;
}

export const TaskEntity = new EntitySchema<Task>({
  name: 'Task',
  tableName: 'tasks',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    name: { type: 'string', length: 100 },
    description: { type: 'text', default: '' },
    center: { kind: 'm:1', entity: () => CenterEntity, deleteRule: 'cascade' },
    scopeType: { type: 'string', length: 16, default: '' },
    scopeId: { type: 'integer', default: 0 },
  },
});

export const TaskStepEntity = new EntitySchema<TaskStep>({
  name: 'TaskStep',
  tableName: 'task_steps',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    task: { kind: 'm:1', entity: 'Task', deleteRule: 'cascade' },
    ordinal: { type: 'integer' },
    procedure: { kind: 'm:1', entity: 'Procedure', nullable: true, deleteRule: 'cascade' },
    subtask: { kind: 'm:1', entity: 'Task', nullable: true, deleteRule: 'cascade' },
  },
});
