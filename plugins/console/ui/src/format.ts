import { lang } from './i18n';
import { server } from './plugins';

/** Sizes and times as people read them: times on the site's clock, in the console's language. */

const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

export function humanBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes <= 0) return '0 B';
  const exponent = Math.min(units.length - 1, Math.floor(Math.log(bytes) / Math.log(1024)));
  const value = bytes / 1024 ** exponent;
  return `${value >= 100 || exponent === 0 ? Math.round(value) : Number(value.toFixed(1))} ${units[exponent]}`;
}

export function humanDuration(seconds: number): string {
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return d > 0 ? `${d} d ${h} h` : h > 0 ? `${h} h ${m} min` : `${m} min`;
}

/** A MAC as 12 lower-case hex digits, for comparing whatever separators were typed. */
export function bareMac(text: string): string {
  return text.toLowerCase().replace(/[^0-9a-f]/g, '');
}

/** 001122aabbcc -> 00:11:22:aa:bb:cc */
export function colonMac(mac: string): string {
  return bareMac(mac).replace(/(..)(?!$)/g, '$1:');
}

/** The site's time zone (GET /site), else the browser's: the one clock of every time shown. */
export function siteZone(): string | undefined {
  return server.value?.timeZone;
}

const formats = new Map<string, Intl.DateTimeFormat>();
function formatOf(style: 'dateTime' | 'time' | 'date'): Intl.DateTimeFormat {
  const zone = siteZone();
  const key = `${lang.value} ${zone ?? ''} ${style}`;
  let format = formats.get(key);
  if (!format) {
    const options: Intl.DateTimeFormatOptions =
      style === 'time'
        ? { timeStyle: 'medium' }
        : style === 'date'
          ? { dateStyle: 'medium' }
          : { dateStyle: 'medium', timeStyle: 'medium' };
    format = new Intl.DateTimeFormat(lang.value, { ...options, timeZone: zone });
    formats.set(key, format);
  }
  return format;
}

type When = string | number | Date;

/** A date and time on the site's clock, in the console's language: "27 nov 2026, 9:00:00". */
export function dateTime(when: When): string {
  return formatOf('dateTime').format(new Date(when));
}

/** The time of day on the site's clock: "9:00:00". */
export function timeOfDay(when: When): string {
  return formatOf('time').format(new Date(when));
}

/** The date on the site's clock: "27 nov 2026". */
export function dateOnly(when: When): string {
  return formatOf('date').format(new Date(when));
}

/** Minutes the site's zone is ahead of UTC at `at` (the browser's zone when the site said none). */
function offsetMinutes(at: number): number {
  const zone = siteZone();
  const parts: Record<string, number> = {};
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  });
  for (const part of format.formatToParts(at)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!);
  return Math.round((wall - Math.floor(at / 60_000) * 60_000) / 60_000);
}

/** The instant a day ('2026-11-26', `days` later) begins on the site's clock. */
export function siteMidnight(date: string, days = 0): number {
  const utc = Date.parse(`${date}T00:00:00Z`) + days * 86_400_000;
  const guess = utc - offsetMinutes(utc) * 60_000;
  return utc - offsetMinutes(guess) * 60_000;
}
