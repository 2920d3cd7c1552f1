import { EntitySchema } from '@mikro-orm/core';

export type TargetType = 'center' | 'room' | 'folder' | 'group';

/**
 * A power calendar of one center, room or computer folder (one per target): per weekday a
 * power-on and/or power-off time, and date ranges in which nothing happens. `week` and
 * `holidays` are JSON (see schemas.ts): they are read and written whole.
 */
export interface PowerCalendar {
  id: number;
  targetType: TargetType;
  /** The center's or room's id, the folder's public id (as GET /scopes shows it), or a saved group's id. */
  targetId: number;
  /** JSON: `{"mon": {"on": "07:45", "off": "21:00"}, ...}`. */
  week: string;
  /** JSON: `[{"from": "2026-12-24", "to": "2027-01-06", "label": "Christmas"}]`. */
  holidays: string;
  /** Power off PCs with a user session (or running a command) too. */
  forceOff: boolean;
}

export const PowerCalendarEntity = new EntitySchema<PowerCalendar>({
  name: 'PowerCalendar',
  tableName: 'power_calendars',
  uniques: [{ name: 'power_calendars_target', properties: ['targetType', 'targetId'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    targetType: { type: 'string', length: 8, fieldName: 'target_type' },
    targetId: { type: 'integer', fieldName: 'target_id' },
    week: { type: 'text' },
    holidays: { type: 'text' },
    forceOff: { type: 'boolean', fieldName: 'force_off', default: false },
  },
});
