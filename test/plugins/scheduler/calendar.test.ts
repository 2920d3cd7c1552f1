// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { test } from 'uvu';
import { nextOccurrence, occurrences, readYears, whenAt, type When } from '../../../plugins/scheduler';
import { ManualClock } from '../../../testing';
import { HttpError } from '../../../core/errors';

const at = (y: number, mo: number, d: number, h = 0, mi = 0) => new Date(y, mo - 1, d, h, mi).getTime();
const NOW = at(2026, 11, 22, 10, 0);

function when(partial: Partial<When>): When {
  return { years: [2026], months: 0, weeks: 0, weekDays: 0, days: 0, hours: 0, amPm: 0, minutes: 0, ...partial };
}

function refused(fn: () => unknown, field: string): void {
  assert.throws(fn, (e: unknown) => e instanceof HttpError && e.status === 400 && e.field === field, `expected a 400 naming ${field}`);
}

test('years: a year, a list of years, or the legacy mask from 2010', () => {
  assert.deepEqual(readYears(2026), [2026], 'an integer from 2010 is a year');
  assert.deepEqual(readYears(2099), [2099], '2099 is a year');
  assert.deepEqual(readYears([2030, 2026, 2030]), [2026, 2030], 'a list is sorted and deduplicated');
  assert.deepEqual(readYears(0b101), [2010, 2012], 'small integers are the reference mask');
  assert.deepEqual(readYears(1 << 15), [2025], 'bit 15 of the mask is 2025');
  assert.deepEqual(readYears((1 << 15) | (1 << 14) | 1), [2010, 2024, 2025], 'a mask above 9999 is still a mask');
  refused(() => readYears(0), 'when.years');
  refused(() => readYears(65536), 'when.years');
  refused(() => readYears([2026, 2009]), 'when.years[1]');
  refused(() => readYears([10000]), 'when.years[0]');
});

test('a schedule in 2026 fires at its local minute', () => {
  const w = when({ years: [2026], months: 1 << 11, days: 1 << 24, hours: 1 << 8, minutes: 30 });
  assert.equal(nextOccurrence(w, NOW), at(2026, 12, 25, 8, 30), 'Christmas 2026, 08:30');
  assert.equal(nextOccurrence(w, at(2026, 12, 25, 8, 31)), null, 'nothing after the only occurrence');
});

test('schedules in 2030 and 2099 fire, which the reference mask cannot express', () => {
  const w = when({ years: [2030, 2099], months: 1 << 0, days: 1, hours: 1 << 0, amPm: 1, minutes: 5 });
  assert.equal(nextOccurrence(w, NOW), at(2030, 1, 1, 12, 5), 'hour bit 0 with am_pm 1 is 12:00');
  assert.equal(nextOccurrence(w, at(2030, 1, 1, 12, 6)), at(2099, 1, 1, 12, 5), 'then 2099');
  assert.equal(nextOccurrence(w, at(2099, 1, 1, 12, 6)), null, 'then none');
});

test('times in the past are skipped, never run late', () => {
  // Every day at 09:00 in November and December 2026; now is 22 November, 10:00.
  const w = when({ months: 3 << 10, days: 2 ** 31 - 1, hours: 1 << 9 });
  assert.equal(nextOccurrence(w, NOW), at(2026, 11, 23, 9, 0), 'today 09:00 has passed: tomorrow');
  const all = occurrences(w, NOW, at(2027, 1, 1));
  assert.equal(all.length, 8 + 31, 'the rest of November and all of December');
  assert.ok(
    all.every((t) => t > NOW),
    'no occurrence before now',
  );
  assert.equal(
    nextOccurrence(when({ years: [2025], months: 4095, days: 1, hours: 1 }), NOW),
    null,
    'a schedule wholly in the past never fires',
  );
});

test('week days: bit 0 is Monday, bit 6 Sunday', () => {
  const mondays = occurrences(when({ years: [2027], months: 1 << 1, weekDays: 1, hours: 1 << 8 }), NOW, at(2028, 1, 1));
  assert.deepEqual(
    mondays.map((t) => new Date(t).getDate()),
    [1, 8, 15, 22],
    'Mondays of February 2027',
  );
  const sundays = occurrences(when({ years: [2027], months: 1 << 1, weekDays: 1 << 6, hours: 1 << 8 }), NOW, at(2028, 1, 1));
  assert.deepEqual(
    sundays.map((t) => new Date(t).getDate()),
    [7, 14, 21, 28],
    'Sundays of February 2027',
  );
});

test('weeks: week 0 starts on day 1 and ends on Saturday', () => {
  // May 2027 starts on a Saturday: week 0 is the 1st alone, week 1 is 2-8.
  const w0 = occurrences(when({ years: [2027], months: 1 << 4, weeks: 1, hours: 1 }), NOW, at(2028, 1, 1));
  assert.deepEqual(
    w0.map((t) => new Date(t).getDate()),
    [1],
    'week 0 of May 2027',
  );
  const w1 = occurrences(when({ years: [2027], months: 1 << 4, weeks: 2, hours: 1 }), NOW, at(2028, 1, 1));
  assert.deepEqual(
    w1.map((t) => new Date(t).getDate()),
    [2, 3, 4, 5, 6, 7, 8],
    'week 1 of May 2027',
  );
});

test('day, week-day and week selections add up; days past the month end are ignored', () => {
  const w = when({ years: [2027], months: 1 << 1, days: (1 << 30) | (1 << 0), weekDays: 1 << 2 });
  const days = occurrences({ ...w, hours: 1 }, NOW, at(2028, 1, 1)).map((t) => new Date(t).getDate());
  assert.deepEqual(days, [1, 3, 10, 17, 24], 'the 1st plus Wednesdays; no 31 February');
});

test('whenAt: the masks of the current minute name that minute', () => {
  const t = at(2031, 7, 4, 15, 45) + 12_000;
  assert.equal(nextOccurrence(whenAt(t), at(2031, 7, 4, 15, 45)), at(2031, 7, 4, 15, 45), 'the same minute');
  assert.equal(nextOccurrence(whenAt(t), t), null, 'already past a few seconds later');
});

test('property: occurrences are ascending, not before `from`, and match every mask', () => {
  fc.assert(
    fc.property(
      fc.record({
        years: fc.uniqueArray(fc.integer({ min: 2026, max: 2040 }), { minLength: 1, maxLength: 3 }),
        months: fc.integer({ min: 1, max: 4095 }),
        days: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        hours: fc.integer({ min: 1, max: 4095 }),
        amPm: fc.integer({ min: 0, max: 1 }),
        minutes: fc.integer({ min: 0, max: 59 }),
      }),
      fc.integer({ min: 0, max: 365 * 24 * 3600 }),
      (r, offset) => {
        const w = when({ ...r, years: [...r.years].sort((a, b) => a - b) });
        const from = NOW + offset * 1000;
        const list = occurrences(w, from, from + 40 * 24 * 3600 * 1000);
        for (let i = 0; i < list.length; i++) {
          const d = new Date(list[i]!);
          assert.ok(list[i]! >= from, 'not before from');
          if (i > 0) assert.ok(list[i]! > list[i - 1]!, 'ascending');
          assert.ok(w.years.includes(d.getFullYear()), 'year selected');
          assert.ok(w.months & (1 << d.getMonth()), 'month selected');
          assert.ok(w.days & (1 << (d.getDate() - 1)), 'day selected');
          assert.equal(d.getMinutes(), w.minutes, 'minute as given');
          // A local hour that DST skips is moved one hour forward.
          const hourOf = (h: number) => h >= 0 && h >= 12 === (w.amPm === 1) && (w.hours & (1 << (h % 12))) !== 0;
          assert.ok(hourOf(d.getHours()) || hourOf(d.getHours() - 1), 'hour selected');
        }
      },
    ),
    { numRuns: 200 },
  );
});

test('ManualClock runs due timers in time order and only when advanced', async () => {
  const clock = new ManualClock(1000);
  const seen: string[] = [];
  clock.setTimer(3000, () => void seen.push('b'));
  clock.setTimer(2000, () => void seen.push('a'));
  const cancel = clock.setTimer(2500, () => void seen.push('cancelled'));
  cancel();
  await clock.advanceTo(1999);
  assert.deepEqual(seen, [], 'nothing due yet');
  await clock.advanceTo(5000);
  assert.deepEqual(seen, ['a', 'b'], 'earliest first, cancelled one skipped');
  assert.equal(clock.now(), 5000, 'time moved to the target');
});

test.run();
