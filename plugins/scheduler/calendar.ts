import { ErrorCode, badRequest } from 'ogserve';
import { localInstant, systemTimeZone, wallClock } from '../inventory';

/**
 * When a schedule fires, in the reference's mask encoding except for years: the reference
 * keeps years as a 16-bit mask from 2010 (bit 15 = 2025), which cannot express 2026 or
 * later (reference-behaviour.md 8.4, quirk 9). We keep the list of years instead.
 */
export interface When {
  /** Explicit years, ascending, no duplicates. */
  years: number[];
  /** Bit i = month i + 1. */
  months: number;
  /** Bit w = the w-th calendar week of the month (week 0 starts on day 1; weeks end on Saturday). */
  weeks: number;
  /** Bit 0 = Monday ... bit 6 = Sunday: every such weekday of the month. */
  weekDays: number;
  /** Bit i = day of month i + 1. */
  days: number;
  /** Bit i = hour i (am_pm 0) or i + 12 (am_pm 1). */
  hours: number;
  amPm: number;
  minutes: number;
}

/** First year of the reference's year mask (bit 0). */
export const MASK_FIRST_YEAR = 2010;
/** Integers in this range are read as a year, not a mask. */
export const FIRST_YEAR = 2010;
export const LAST_YEAR = 9999;
const legacyMaskBits = 16;

/**
 * `years` as a request gives it: an array of years, a single year (2010-9999), or the
 * reference's mask (any other integer below 2^16, bit i = 2010 + i). A mask can only
 * name years up to 2025; an integer from 2010 to 9999 is always read as a year.
 */
export function readYears(value: number | number[], field = 'when.years'): number[] {
  let years: number[];
  if (Array.isArray(value)) {
    years = value;
    for (const [i, year] of value.entries()) {
      if (!Number.isInteger(year) || year < FIRST_YEAR || year > LAST_YEAR) {
        throw badRequest(ErrorCode.invalidField, `'${field}[${i}]' must be a year from ${FIRST_YEAR} to ${LAST_YEAR}`, `${field}[${i}]`);
      }
    }
  } else if (value >= FIRST_YEAR && value <= LAST_YEAR) {
    years = [value];
  } else if (value >= 0 && value < 2 ** legacyMaskBits) {
    years = [];
    for (let bit = 0; bit < legacyMaskBits; bit++) if (value & (1 << bit)) years.push(MASK_FIRST_YEAR + bit);
  } else {
    throw badRequest(
      ErrorCode.invalidField,
      `'${field}' must be a year (${FIRST_YEAR}-${LAST_YEAR}), a list of years or a year mask below 65536`,
      field,
    );
  }
  const unique = [...new Set(years)].sort((a, b) => a - b);
  if (unique.length === 0) throw badRequest(ErrorCode.invalidField, `'${field}' selects no year`, field);
  return unique;
}

/** Refuse a `when` that can never fire, naming the field that selects nothing. */
export function requireSomeTime(when: When, prefix = 'when'): void {
  if (when.months === 0) throw badRequest(ErrorCode.invalidField, `'${prefix}.months' selects no month`, `${prefix}.months`);
  if (when.days === 0 && when.weekDays === 0 && when.weeks === 0) {
    throw badRequest(
      ErrorCode.invalidField,
      `'${prefix}.days', '${prefix}.week_days' and '${prefix}.weeks' select no day`,
      `${prefix}.days`,
    );
  }
  if (when.hours === 0) throw badRequest(ErrorCode.invalidField, `'${prefix}.hours' selects no hour`, `${prefix}.hours`);
}

/** The masks of one wall-clock minute in `zone` (the system's unless given): what a schedule without `when` stores. */
export function whenAt(ms: number, zone = systemTimeZone()): When {
  const date = new Date(wallClock(ms, zone));
  const hour = date.getUTCHours();
  return {
    years: [date.getUTCFullYear()],
    months: 1 << date.getUTCMonth(),
    weeks: 0,
    weekDays: 0,
    days: 1 << (date.getUTCDate() - 1),
    hours: 1 << (hour % 12),
    amPm: hour >= 12 ? 1 : 0,
    minutes: date.getUTCMinutes(),
  };
}

/** Calendar arithmetic on dates alone (no zone): the days of a month, a date's weekday. */
function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

/** Days of the month selected by the day, weekday and week masks, ascending. */
export function daysOf(when: When, year: number, month: number): number[] {
  const count = daysInMonth(year, month);
  // JS weekday: 0 = Sunday. Day 1's offset into its Sunday-to-Saturday week.
  const firstWeekday = new Date(Date.UTC(year, month, 1)).getUTCDay();
  const out: number[] = [];
  for (let day = 1; day <= count; day++) {
    const weekday = (firstWeekday + day - 1) % 7;
    const mondayFirst = (weekday + 6) % 7;
    const week = Math.floor((day - 1 + firstWeekday) / 7);
    if (when.days & (1 << (day - 1)) || when.weekDays & (1 << mondayFirst) || when.weeks & (1 << week)) out.push(day);
  }
  return out;
}

function hoursOf(when: When): number[] {
  const out: number[] = [];
  for (let bit = 0; bit < 12; bit++) if (when.hours & (1 << bit)) out.push(bit + (when.amPm ? 12 : 0));
  return out;
}

const isoDate = (year: number, month: number, day: number) =>
  `${String(year).padStart(4, '0')}-${String(month + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;

/**
 * The first fire time at or after `from` (ms), a wall-clock time in `zone` (the site's; the
 * system's unless given) with its daylight saving; null when none is left. Earlier
 * occurrences are skipped, never run late. A time the clocks skip fires at the first minute
 * after it; one that comes twice fires the first time (as power calendars do).
 */
export function nextOccurrence(when: When, from: number, zone = systemTimeZone()): number | null {
  const fromYear = new Date(wallClock(from, zone)).getUTCFullYear();
  const hours = hoursOf(when);
  for (const year of when.years) {
    if (year < fromYear) continue;
    for (let month = 0; month < 12; month++) {
      if (!(when.months & (1 << month))) continue;
      const next = month === 11 ? isoDate(year + 1, 0, 1) : isoDate(year, month + 1, 1);
      if (localInstant(next, 0, zone) <= from) continue;
      for (const day of daysOf(when, year, month)) {
        for (const hour of hours) {
          const at = localInstant(isoDate(year, month, day), hour * 60 + when.minutes, zone);
          if (at >= from) return at;
        }
      }
    }
  }
  return null;
}

/** Every fire time in [from, until), for tests and previews. */
export function occurrences(when: When, from: number, until: number, zone = systemTimeZone()): number[] {
  const out: number[] = [];
  for (let at = nextOccurrence(when, from, zone); at !== null && at < until; at = nextOccurrence(when, at + 1, zone)) out.push(at);
  return out;
}
