import { EntitySchema } from '@mikro-orm/core';

/**
 * What a schedule runs: a task by id, or (procedure, command) the queued actions whose
 * session equals `target`, as the reference.
 */
export type ScheduleKind = 'task' | 'procedure' | 'command';

/** A schedule row: the reference's masks, except that years are an explicit list. */
export interface Schedule {
  id: number;
  kind: ScheduleKind;
  target: number;
  name: string;
  /** Comma-separated years, ascending ("2026,2030"). */
  years: string;
  months: number;
  weeks: number;
  weekDays: number;
  days: number;
  hours: number;
  amPm: number;
  minutes: number;
  suspended: boolean;
  session: number;
}

export const ScheduleEntity = new EntitySchema<Schedule>({
  name: 'Schedule',
  tableName: 'schedules',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    kind: { type: 'string', length: 16 },
    target: { type: 'integer' },
    name: { type: 'string', length: 100 },
    years: { type: 'string', length: 2000 },
    months: { type: 'integer' },
    weeks: { type: 'integer' },
    weekDays: { type: 'integer' },
    days: { type: 'integer' },
    hours: { type: 'integer' },
    amPm: { type: 'integer' },
    minutes: { type: 'integer' },
    suspended: { type: 'boolean', default: false },
    session: { type: 'integer', fieldName: 'session_id', default: 0 },
  },
});
