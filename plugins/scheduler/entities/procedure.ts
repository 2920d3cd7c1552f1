import { EntitySchema } from '@mikro-orm/core';
import { type Center, CenterEntity } from '../../inventory';

/**
 * A named list of steps within a center: commands to queue, or other procedures to
 * include. Deleting a procedure deletes its steps and every step that includes it.
 */
export interface Procedure {
  id: number;
  name: string;
  description: string;
  center: Center;
}

export interface ProcedureStep {
  id: number;
  procedure: Procedure;
  /** Execution order within the procedure (the request's array index). */
  ordinal: number;
  /** A command step: its name and JSON params. */
  command?: string | null;
  params?: string | null;
  /** An include step: the procedure whose steps run here. */
  subprocedure?: Procedure | null;
}

export const ProcedureEntity = new EntitySchema<Procedure>({
  name: 'Procedure',
  tableName: 'procedures',
  uniques: [{ name: 'procedures_center_name_unique', properties: ['center', 'name'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    name: { type: 'string', length: 100 },
    description: { type: 'text', default: '' },
    center: { kind: 'm:1', entity: () => CenterEntity, deleteRule: 'cascade' },
  },
});

export const ProcedureStepEntity = new EntitySchema<ProcedureStep>({
  name: 'ProcedureStep',
  tableName: 'procedure_steps',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    procedure: { kind: 'm:1', entity: 'Procedure', deleteRule: 'cascade' },
    ordinal: { type: 'integer' },
    command: { type: 'string', length: 32, nullable: true },
    params: { type: 'text', nullable: true },
    subprocedure: { kind: 'm:1', entity: 'Procedure', nullable: true, deleteRule: 'cascade' },
  },
});
