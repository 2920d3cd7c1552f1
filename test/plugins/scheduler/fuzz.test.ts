import assert from 'node:assert/strict';
import fc from 'fast-check';
import { test } from 'uvu';
import { schedulerSite, ENDPOINTS } from './helpers';

/** Values near the real shapes, so that requests get past the schema now and then. */
const id = fc.oneof(fc.nat(5), fc.constantFrom('1', '2', '0', '-1', 'x', '1e3', ''), fc.double());
const when = fc.record(
  {
    years: fc.oneof(fc.integer({ min: -5, max: 70000 }), fc.array(fc.integer({ min: 1990, max: 10001 }), { maxLength: 3 })),
    months: fc.integer({ min: -1, max: 5000 }),
    weeks: fc.integer({ min: -1, max: 70 }),
    week_days: fc.integer({ min: -1, max: 130 }),
    days: fc.integer({ min: -1, max: 2 ** 31 }),
    hours: fc.integer({ min: -1, max: 5000 }),
    am_pm: fc.integer({ min: -1, max: 2 }),
    minutes: fc.integer({ min: -1, max: 61 }),
  },
  { requiredKeys: [] },
);
const step = fc.record(
  {
    command: fc.constantFrom('run', 'session', 'setup', 'wol', 'reboot', 'image_restore', 'nope', ''),
    params: fc.oneof(
      fc.dictionary(fc.constantFrom('run', 'disk', 'part', 'partition', 'id', 'name', 'type'), fc.oneof(fc.string(), fc.nat(9))),
      fc.anything(),
    ),
    procedure: id,
    task: id,
  },
  { requiredKeys: [] },
);
const body = fc.oneof(
  fc.anything(),
  fc.record(
    {
      id,
      center: id,
      procedure: id,
      task: id,
      name: fc.string({ maxLength: 120 }),
      type: fc.constantFrom('task', 'procedure', 'command', 'other'),
      clients: fc.array(fc.constantFrom('127.0.2.1', '127.0.2.2', '10.0.0.1', 'bad'), { maxLength: 3 }),
      command: fc.constantFrom('run', 'reboot', 'hardware', 'wol', 'x'),
      params: fc.anything(),
      steps: fc.array(step, { maxLength: 4 }),
      when,
      scope: fc.record({ type: fc.constantFrom('center', 'room', 'client', 'x'), id }, { requiredKeys: [] }),
    },
    { requiredKeys: [] },
  ),
);

test('random bodies on every scheduling endpoint: 200 or 400 with a named error, never 500', async () => {
  const site = await schedulerSite();
  try {
    await site.s.post('/procedure/add', { center: site.center, name: 'seed', steps: [{ command: 'reboot' }] });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ENDPOINTS), body, async (path, value) => {
        const r = await site.s.post(path, value);
        assert.ok(r.status === 200 || r.status === 400, `${path} ${JSON.stringify(value)} -> ${r.status} ${r.text}`);
        if (r.status === 400) assert.equal(typeof r.body?.error, 'string', `${path}: error code in ${r.text}`);
      }),
      { numRuns: 600 },
    );
  } finally {
    await site.close();
  }
});

test.run();
