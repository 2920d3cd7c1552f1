import { type MessageKey, t } from '../../i18n';

/** A schedule's time in the reference's masks, as POST /schedule/get lists it and /schedule/create takes it. */
export interface When {
  years: number[];
  months: number;
  weeks: number;
  week_days: number;
  days: number;
  hours: number;
  am_pm: number;
  minutes: number;
}

/** Every month: what a weekly schedule runs in. */
const everyMonth = 2 ** 12 - 1;
/** How many years ahead a weekly schedule is written for: `years` is an explicit list. */
const weeklyYears = 50;

/** Monday first, as the `week_days` mask (bit 0 = Monday ... bit 6 = Sunday). */
export const weekdayKeys: MessageKey[] = [
  'scheduler.mon',
  'scheduler.tue',
  'scheduler.wed',
  'scheduler.thu',
  'scheduler.fri',
  'scheduler.sat',
  'scheduler.sun',
];

const hourMasks = (hour: number) => ({ hours: 1 << (hour % 12), am_pm: hour >= 12 ? 1 : 0 });

/** A date and time as the reference's masks: one year, one month, one day, one hour, a minute. */
export function onceAt(local: string): When {
  const date = new Date(local);
  return {
    years: [date.getFullYear()],
    months: 1 << date.getMonth(),
    weeks: 0,
    week_days: 0,
    days: 1 << (date.getDate() - 1),
    ...hourMasks(date.getHours()),
    minutes: date.getMinutes(),
  };
}

/**
 * Every week on `weekdays` (0 = Monday) at `time` (hh:mm): the weekday mask with every
 * month, no day of the month, from this year on.
 */
export function weeklyAt(weekdays: number[], time: string, thisYear = new Date().getFullYear()): When {
  const [hour, minute] = time.split(':').map(Number);
  return {
    years: Array.from({ length: weeklyYears }, (_, i) => thisYear + i),
    months: everyMonth,
    weeks: 0,
    week_days: weekdays.reduce((mask, day) => mask | (1 << day), 0),
    days: 0,
    ...hourMasks(hour ?? 0),
    minutes: minute ?? 0,
  };
}

const bits = (mask: number, size: number) => [...Array(size).keys()].filter((i) => mask & (1 << i));
const pad = (n: number) => String(n).padStart(2, '0');

function timesOf(w: When): string {
  return bits(w.hours, 12)
    .map((h) => `${pad(h + 12 * w.am_pm)}:${pad(w.minutes)}`)
    .join(', ');
}

/**
 * A schedule's time as people say it: "Mon, Wed at 08:00" for a weekly one, "2026-12-01
 * 09:00" for one minute, else its years, months and days with its times.
 */
export function describeWhen(w: When): string {
  const time = timesOf(w);
  if (w.week_days && !w.days && !w.weeks && w.months === everyMonth) {
    const days = bits(w.week_days, 7).map((d) => t(weekdayKeys[d]!));
    return t('scheduler.weeklyAt', { days: days.join(', '), time });
  }
  const months = bits(w.months, 12);
  const days = bits(w.days, 31);
  if (w.years.length === 1 && months.length === 1 && days.length === 1 && !w.week_days && !w.weeks) {
    return `${w.years[0]}-${pad(months[0]! + 1)}-${pad(days[0]! + 1)} ${time}`;
  }
  const weekdays = bits(w.week_days, 7).map((d) => t(weekdayKeys[d]!));
  return t('scheduler.maskWhen', {
    years: w.years.length > 3 ? `${w.years[0]}-${w.years.at(-1)}` : w.years.join(', '),
    months: months.map((m) => m + 1).join(', '),
    days: [...days.map((d) => d + 1), ...weekdays].join(', '),
    time,
  });
}
