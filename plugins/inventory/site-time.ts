import { StartupError } from 'ogserve';

/**
 * The site's clock: local wall-clock times in an IANA time zone turned into instants, with
 * Intl alone (no time-zone library): what a schedule's or a calendar's "07:45 on Monday"
 * means on each date, daylight saving included.
 */

const minuteMs = 60_000;
const dayMs = 24 * 60 * minuteMs;
const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(zone: string): Intl.DateTimeFormat {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formats.set(zone, format);
  }
  return format;
}

/** Whether Intl knows this IANA zone name. */
export function isTimeZone(zone: string): boolean {
  try {
    formatFor(zone);
    return true;
  } catch {
    return false;
  }
}

/** The wall clock in `zone` at `at`, as milliseconds of a UTC date with the same fields. */
export function wallClock(at: number, zone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatFor(zone).formatToParts(new Date(at))) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
}

/** Minutes the zone is ahead of UTC at `at` (Madrid: 60 in winter, 120 in summer). */
export function offsetMinutes(at: number, zone: string): number {
  return Math.round((wallClock(at, zone) - Math.floor(at / 1000) * 1000) / minuteMs);
}

/** The local date ('2027-03-28') at `at`. */
export function localDate(at: number, zone: string): string {
  return new Date(wallClock(at, zone)).toISOString().slice(0, 10);
}

/** `at` as ISO 8601 local time with its offset: '2027-03-29T07:45:00+02:00'. */
export function isoWithOffset(at: number, zone: string): string {
  const offset = offsetMinutes(at, zone);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const hhmm = `${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${new Date(wallClock(at, zone)).toISOString().slice(0, 19)}${sign}${hhmm}`;
}

/**
 * The instant `minutes` after local midnight of `date` in `zone`. A time that happens twice
 * (the hour the clocks go back) is its first occurrence; a time that does not exist (the
 * hour they skip) is the first minute after it that does, the moment the clocks jump.
 */
export function localInstant(date: string, minutes: number, zone: string): number {
  const wanted = Date.parse(`${date}T00:00:00Z`) + minutes * minuteMs;
  // The offsets half a day either side cover the one change a day may hold.
  const before = offsetMinutes(wanted - dayMs / 2, zone);
  const after = offsetMinutes(wanted + dayMs / 2, zone);
  const candidates = [wanted - before * minuteMs, wanted - after * minuteMs].filter((at) => wallClock(at, zone) === wanted);
  if (candidates.length > 0) return Math.min(...candidates);
  // In the gap: the first minute whose offset is the later one.
  let low = wanted - before * minuteMs;
  let high = wanted - after * minuteMs;
  if (low > high) [low, high] = [high, low];
  while (high - low > minuteMs) {
    const middle = low + Math.floor((high - low) / 2 / minuteMs) * minuteMs;
    if (offsetMinutes(middle, zone) === after) high = middle;
    else low = middle;
  }
  return high;
}

/** The date after `date` ('2027-03-28' -> '2027-03-29'). */
export function nextDate(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + dayMs).toISOString().slice(0, 10);
}

/** 'mon'..'sun' of a date. */
export function weekdayOf(date: string): Weekday {
  return weekdays[(new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7]!;
}

export const weekdays = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof weekdays)[number];

/** The system's zone, as Node sees it (`UTC` when it has none). */
export function systemTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/**
 * The site's time zone (`site.time_zone`, else the system's): the one clock of every time
 * people set (schedules, power calendars) and read (the console). Exported by the inventory,
 * which every plugin that takes a time requires.
 */
export class SiteTime {
  /** The IANA zone: `Europe/Madrid`. */
  readonly zone: string;
  /** Where it comes from: the site's config key, or the system's zone because that key is empty. */
  readonly source: 'site.time_zone' | 'system';

  constructor(configured: string) {
    this.zone = configured || systemTimeZone();
    this.source = configured ? 'site.time_zone' : 'system';
    if (!isTimeZone(this.zone)) throw new StartupError(`site.time_zone: '${configured}' is not an IANA time zone (e.g. 'Europe/Madrid')`);
  }
}
