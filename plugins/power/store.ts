import type { EntityManager } from '@mikro-orm/core';
import type { Static } from '@sinclair/typebox';
import { type Database, ErrorCode, HttpError, badRequest } from 'ogserve';
import type { Groups } from '../groups';
import type { Inventory } from '../inventory';
import { type PowerCalendar, PowerCalendarEntity } from './entities/calendar';
import type { CalendarBody, CalendarView, Holiday, Week } from './schemas';

export type Calendar = Static<typeof CalendarView>;

/** A stored row as the routes answer it. */
export function viewOf(row: PowerCalendar): Calendar {
  return {
    id: row.id,
    target: { type: row.targetType, id: row.targetId },
    week: JSON.parse(row.week) as Static<typeof Week>,
    holidays: JSON.parse(row.holidays) as Static<typeof Holiday>[],
    force_off: row.forceOff,
  };
}

/** A date the pattern let through that no calendar has (2027-02-30) is refused naming its field. */
function checkDate(value: string, field: string): void {
  const parsed = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== value)
    throw badRequest(ErrorCode.invalidField, `'${field}' is not a date of the calendar: ${value}`, field);
}

/**
 * The calendars, read and written whole. What the body schema cannot say is checked here:
 * real dates, ranges in order, a target that exists, one calendar per target.
 */
export class CalendarStore {
  constructor(
    private readonly db: Database,
    private readonly inventory: Pick<Inventory, 'scopeExists' | 'computerFolderExists'>,
    private readonly groups: Pick<Groups, 'exists'>,
  ) {}

  async all(em?: EntityManager): Promise<Calendar[]> {
    const rows = await this.db.unit(em).find(PowerCalendarEntity, {}, { orderBy: { id: 'asc' } });
    return rows.map(viewOf);
  }

  async get(id: number, em?: EntityManager): Promise<Calendar> {
    const row = await this.db.unit(em).findOne(PowerCalendarEntity, { id });
    if (!row) throw new HttpError(404, ErrorCode.notFound, `no power calendar with id ${id}`);
    return viewOf(row);
  }

  /** Create (no `id`) or replace calendar `id`. */
  async save(body: Static<typeof CalendarBody>, id?: number): Promise<Calendar> {
    const holidays = body.holidays ?? [];
    for (const [i, h] of holidays.entries()) {
      checkDate(h.from, `holidays[${i}].from`);
      checkDate(h.to, `holidays[${i}].to`);
      if (h.to < h.from) throw badRequest(ErrorCode.invalidField, `'holidays[${i}].to' is before its 'from'`, `holidays[${i}].to`);
    }
    await this.requireTarget(body.target);
    return this.db.transactional(async (em) => {
      const same = await em.findOne(PowerCalendarEntity, { targetType: body.target.type, targetId: body.target.id });
      if (same && same.id !== id)
        throw badRequest(ErrorCode.duplicate, `${body.target.type} ${body.target.id} has calendar ${same.id} already`, 'target');
      const row = id === undefined ? em.create(PowerCalendarEntity, {} as PowerCalendar) : await em.findOne(PowerCalendarEntity, { id });
      if (!row) throw new HttpError(404, ErrorCode.notFound, `no power calendar with id ${id}`);
      row.targetType = body.target.type;
      row.targetId = body.target.id;
      row.week = JSON.stringify(body.week);
      row.holidays = JSON.stringify(holidays.map((h) => ({ from: h.from, to: h.to, label: h.label ?? '' })));
      row.forceOff = body.force_off ?? false;
      await em.flush();
      return viewOf(row);
    });
  }

  async remove(id: number, em?: EntityManager): Promise<void> {
    const removed = await this.db.unit(em).nativeDelete(PowerCalendarEntity, { id });
    if (removed === 0) throw new HttpError(404, ErrorCode.notFound, `no power calendar with id ${id}`);
  }

  private async requireTarget(target: Calendar['target']): Promise<void> {
    const exists =
      target.type === 'folder'
        ? await this.inventory.computerFolderExists(target.id, 'target.id')
        : target.type === 'group'
          ? await this.groups.exists(target.id)
          : await this.inventory.scopeExists({ type: target.type, id: target.id });
    if (!exists) throw badRequest(ErrorCode.unknownId, `no ${target.type} with id ${target.id}`, 'target.id');
  }
}
