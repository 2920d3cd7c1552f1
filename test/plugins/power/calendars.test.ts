import assert from 'node:assert/strict';
import { test } from 'uvu';
import { startServer } from '../../support/server';
import { everyDay, powerSite } from './helpers';

test('calendars are created, read, replaced and deleted; one per target', async () => {
  const x = await powerSite('2026-11-02T12:00:00Z', 1);
  try {
    const body = {
      target: { type: 'room', id: x.room },
      week: { mon: { on: '07:45', off: '21:00' }, fri: { off: '15:00' } },
      holidays: [{ from: '2026-12-24', to: '2027-01-06', label: 'Christmas' }],
    };
    const id = await x.calendar(body);
    const one = await x.s.get(`/power/calendars/${id}`);
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(one.body, { id, ...body, force_off: false });
    const list = await x.s.get('/power/calendars');
    assert.deepEqual(list.body, {
      time_zone: 'Europe/Madrid',
      time_zone_source: 'power.time_zone',
      site_time_zone: list.body.site_time_zone,
      calendars: [one.body],
    });

    const twice = await x.s.post('/power/calendars', { target: body.target, week: {} });
    assert.equal(twice.status, 400, twice.text);
    assert.deepEqual([twice.body.error, twice.body.field], ['duplicate', 'target']);
    assert.match(twice.body.message, new RegExp(`has calendar ${id} already`));

    const replaced = await x.s.post(`/power/calendars/${id}`, { target: body.target, week: { sat: { on: '09:00' } }, force_off: true });
    assert.equal(replaced.status, 200, replaced.text);
    assert.deepEqual(replaced.body, { id, target: body.target, week: { sat: { on: '09:00' } }, holidays: [], force_off: true });

    const deleted = await x.s.request('DELETE', `/power/calendars/${id}`);
    assert.deepEqual([deleted.status, deleted.body], [200, { id }]);
    for (const r of [await x.s.get(`/power/calendars/${id}`), await x.s.request('DELETE', `/power/calendars/${id}`)]) {
      assert.equal(r.status, 404, r.text);
      assert.equal(r.body.error, 'not_found');
    }
  } finally {
    await x.close();
  }
});

test('bad input is refused naming the field: times, weekdays, dates, ranges, targets, ids, days', async () => {
  const x = await powerSite('2026-11-02T12:00:00Z', 1);
  try {
    const room = { type: 'room', id: x.room };
    const folderInRoom = await x.s.post('/folder/add', { name: 'f', center: x.center });
    assert.equal(folderInRoom.status, 200, folderInRoom.text);
    const cases: [string, Record<string, unknown>, string, string][] = [
      ['24:00', { target: room, week: { mon: { on: '24:00' } } }, 'week.mon.on', 'invalid_field'],
      ['7:45', { target: room, week: { tue: { off: '7:45' } } }, 'week.tue.off', 'invalid_field'],
      ['a weekday', { target: room, week: { monday: { on: '07:00' } } }, 'week.monday', 'invalid_field'],
      ['an action', { target: room, week: { mon: { start: '07:00' } } }, 'week.mon.start', 'invalid_field'],
      ['no week', { target: room }, 'week', 'missing_field'],
      ['a date', { target: room, week: {}, holidays: [{ from: '2027-02-30', to: '2027-03-01' }] }, 'holidays[0].from', 'invalid_field'],
      ['a date form', { target: room, week: {}, holidays: [{ from: '2027-03-01', to: '1/3/2027' }] }, 'holidays[0].to', 'invalid_field'],
      ['a range', { target: room, week: {}, holidays: [{ from: '2027-03-02', to: '2027-03-01' }] }, 'holidays[0].to', 'invalid_field'],
      ['a target type', { target: { type: 'client', id: 1 }, week: {} }, 'target.type', 'invalid_field'],
      ['an unknown room', { target: { type: 'room', id: 999 }, week: {} }, 'target.id', 'unknown_id'],
      ['an unknown center', { target: { type: 'center', id: 999 }, week: {} }, 'target.id', 'unknown_id'],
      ['an unknown folder', { target: { type: 'folder', id: 65536 + 999 }, week: {} }, 'target.id', 'unknown_id'],
      ['a room folder', { target: { type: 'folder', id: folderInRoom.body.id }, week: {} }, 'target.id', 'invalid_field'],
    ];
    for (const [what, body, field, code] of cases) {
      const r = await x.s.post('/power/calendars', body);
      assert.equal(r.status, 400, `${what}: ${r.text}`);
      assert.deepEqual([r.body.error, r.body.field], [code, field], `${what}: ${r.text}`);
    }
    assert.equal((await x.s.get('/power/calendars')).body.calendars.length, 0, 'nothing stored');
    for (const days of ['0', '32', 'x', '-1', '7.5']) {
      const r = await x.s.get(`/power/calendar/preview?days=${days}`);
      assert.equal(r.status, 400, `days=${days}: ${r.text}`);
      assert.deepEqual([r.body.field, r.body.message], ['days', "'days' must be a whole number from 1 to 31"], `days=${days}`);
    }
    const r = await x.s.get('/power/calendars/abc');
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.field, 'id');
  } finally {
    await x.close();
  }
});

test('preview: every action of the next days at its local time with its offset, a time skipped by the spring change at the first minute after, a time that comes twice once', async () => {
  // Friday 2026-10-23, noon UTC.
  const x = await powerSite('2026-10-23T12:00:00Z', 3);
  try {
    const folder = await x.s.post('/folder/add', { name: 'teachers', room: x.room });
    assert.equal(folder.status, 200, folder.text);
    const moved = await x.s.post('/client/move', { clients: [x.ips[2]], room: x.room, folder_id: folder.body.id });
    assert.equal(moved.status, 200, moved.text);
    const lab = await x.calendar({
      target: { type: 'room', id: x.room },
      week: { sat: { on: '08:00' }, sun: { on: '02:30' }, mon: { on: '07:45', off: '21:00' } },
      holidays: [{ from: '2026-10-27', to: '2026-10-31' }],
      force_off: false,
    });
    const teachers = await x.calendar({ target: { type: 'folder', id: folder.body.id }, week: everyDay({ off: '23:00' }) });
    const center = await x.calendar({ target: { type: 'center', id: x.center }, week: { tue: { on: '06:00' } } });

    const r = await x.s.get('/power/calendar/preview?days=3');
    assert.equal(r.status, 200, r.text);
    const inRoom = [x.ips[0], x.ips[1]];
    const target = (type: string, id: number) => ({ type, id });
    assert.deepEqual(r.body, {
      time_zone: 'Europe/Madrid',
      actions: [
        {
          at: '2026-10-23T23:00:00+02:00',
          action: 'off',
          calendar: teachers,
          target: target('folder', folder.body.id),
          clients: [x.ips[2]],
        },
        { at: '2026-10-24T08:00:00+02:00', action: 'on', calendar: lab, target: target('room', x.room), clients: inRoom },
        {
          at: '2026-10-24T23:00:00+02:00',
          action: 'off',
          calendar: teachers,
          target: target('folder', folder.body.id),
          clients: [x.ips[2]],
        },
        // 02:30 comes twice on the fall-back night: once, the first.
        { at: '2026-10-25T02:30:00+02:00', action: 'on', calendar: lab, target: target('room', x.room), clients: inRoom },
        {
          at: '2026-10-25T23:00:00+01:00',
          action: 'off',
          calendar: teachers,
          target: target('folder', folder.body.id),
          clients: [x.ips[2]],
        },
        { at: '2026-10-26T07:45:00+01:00', action: 'on', calendar: lab, target: target('room', x.room), clients: inRoom },
      ],
    });
    const week = (await x.s.get('/power/calendar/preview')).body.actions as { at: string; calendar: number }[];
    assert.equal(
      week.filter((a) => a.calendar === lab).length,
      4,
      'default 7 days: the lab holidays from the 27th leave Mon off and 3 ons',
    );
    assert.ok(
      week.some((a) => a.calendar === center && a.at === '2026-10-27T06:00:00+01:00'),
      'the center calendar with no PC of its own still listed',
    );
    assert.deepEqual(week.find((a) => a.calendar === center)!, {
      at: '2026-10-27T06:00:00+01:00',
      action: 'on',
      calendar: center,
      target: target('center', x.center),
      clients: [],
    });

    // Five months on: the spring-forward night has no 02:30; the action comes at 03:00, the first minute after.
    await x.clock.advanceTo(Date.parse('2027-03-27T12:00:00Z'));
    const spring = (await x.s.get('/power/calendar/preview?days=1')).body.actions as { at: string; calendar: number }[];
    assert.deepEqual(
      spring.filter((a) => a.calendar === lab).map((a) => a.at),
      ['2027-03-28T03:00:00+02:00'],
    );
  } finally {
    await x.close();
  }
});

test('a power.time_zone Intl does not know stops the start, naming the key', async () => {
  await assert.rejects(
    startServer({ config: { plugins: ['inventory', 'agents', 'wol', 'groups', 'power'], power: { time_zone: 'Mars/Olympus' } } }),
    (error: Error) => {
      assert.match(error.message, /power\.time_zone: 'Mars\/Olympus' is not an IANA time zone/);
      return true;
    },
  );
});

test.run();
