import type { Calendar } from './store';
import { localDate, localInstant, nextDate, weekdayOf } from '../inventory';

export type PowerAction = 'on' | 'off';

export interface Planned {
  /** The instant it fires (ms since 1970). */
  at: number;
  action: PowerAction;
  calendar: Calendar;
}

const dayMs = 24 * 60 * 60 * 1000;

/** "07:45" -> 465. */
function minutesOf(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

/** Whether a holiday range of the calendar holds this local date. */
function onHoliday(calendar: Calendar, date: string): boolean {
  return calendar.holidays.some((h) => h.from <= date && date <= h.to);
}

/**
 * Every action of the calendars with `from < at <= to`, in time order (power-off before
 * power-on at one instant). Each local date of the window is read in `zone`, so a rule's
 * time moves in UTC with daylight saving; a holiday is a local date of the rule's day.
 */
export function planned(calendars: Calendar[], from: number, to: number, zone: string): Planned[] {
  const out: Planned[] = [];
  // A day either side: a local date's times may fall outside its UTC day.
  const last = localDate(to + dayMs, zone);
  for (let date = localDate(from - dayMs, zone); date <= last; date = nextDate(date)) {
    const weekday = weekdayOf(date);
    for (const calendar of calendars) {
      const day = calendar.week[weekday];
      if (!day || onHoliday(calendar, date)) continue;
      for (const action of ['off', 'on'] as const) {
        const time = day[action];
        if (time === undefined) continue;
        const at = localInstant(date, minutesOf(time), zone);
        if (at > from && at <= to) out.push({ at, action, calendar });
      }
    }
  }
  return out.sort((a, b) => a.at - b.at || (a.action === b.action ? a.calendar.id - b.calendar.id : a.action === 'off' ? -1 : 1));
}
