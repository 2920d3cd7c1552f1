import assert from 'node:assert/strict';
import { test } from 'uvu';
import { eventually } from '../../support/fake-agent';
import { parsePrometheus } from '../../support/prometheus';
import { at, energySite, midnight, roomA, roomB } from './helpers';

const [pc1, pc2] = roomA as [string, string];
const pc3 = roomB[0]!;
const day = `?from=${new Date(midnight).toISOString()}&to=${new Date(at('24:00')).toISOString()}`;

test('a scripted day of agent states: hours in each state to the minute, and kWh by room watts, model and default', async () => {
  const x = await energySite();
  try {
    // 08:07 a Windows PC comes up (busy with the server's first refresh, then idle); 09:13 Ana signs in,
    // 11:41 she signs out; 12:02 it goes off. 10:15-10:45 the second PC in ogLive. The third never comes up.
    await x.to('08:07');
    const win = await x.connect(pc1, { mode: 'windows' });
    await x.shows(pc1, 'idle');
    await x.to('09:13');
    win.event('start', 'ana');
    await x.shows(pc1, 'session');
    await x.to('10:15');
    const live = await x.connect(pc2);
    await x.shows(pc2, 'busy');
    await x.to('10:45');
    await live.close();
    await x.shows(pc2, 'off');
    await x.to('11:41');
    win.event('stop', 'ana');
    await x.shows(pc1, 'idle');
    await x.to('12:02');
    await win.close();
    await x.shows(pc1, 'off');
    await x.to('24:00');

    const h = (minutes: number) => Math.round((minutes / 60) * 10_000) / 10_000;
    const byClient = await x.energy(`${day}&by=client`);
    const figures = Object.fromEntries(byClient.groups.map((g: any) => [g.ip, g.hours]));
    assert.deepEqual(figures[pc1], { off: h(487 + 718), idle: h(66 + 21), session: h(148), busy: 0, unknown: 0 }, 'the Windows PC');
    assert.deepEqual(figures[pc2], { off: h(1410), idle: 0, session: 0, busy: h(30), unknown: 0 }, 'the ogLive PC');
    assert.deepEqual(figures[pc3], { off: 24, idle: 0, session: 0, busy: 0, unknown: 0 }, 'the PC never seen');

    // Default watts: off 1, idle 60, session 80, busy 70.
    const byRoom = await x.energy(`${day}&by=room`);
    assert.deepEqual(
      byRoom.groups.map((g: any) => [g.name, g.center, g.clients]),
      [
        ['A', 'Center', 2],
        ['B', 'Center', 1],
      ],
    );
    const kwhA = ((487 + 718 + 1410) / 60) * 0.001 + (87 / 60) * 0.06 + (148 / 60) * 0.08 + (30 / 60) * 0.07;
    assert.equal(byRoom.groups[0].kwh.total, Math.round(kwhA * 1000) / 1000, 'room A kWh at the default watts');
    assert.equal(byRoom.groups[1].kwh.total, 0.024, 'room B: 24 h off at 1 W');
    assert.equal(byRoom.total.hours.off, h(487 + 718 + 1410 + 1440));
    const byCenter = await x.energy(`${day}&by=center`);
    assert.deepEqual(
      byCenter.groups.map((g: any) => [g.name, g.clients, g.kwh.total]),
      [['Center', 3, byRoom.total.kwh.total]],
    );

    // A range within the day: 09:00-10:00 of the Windows PC, to the minute.
    const hour = await x.energy(`?from=${at('09:00')}&to=${at('10:00')}&by=client&room=${x.roomA}`);
    assert.deepEqual(
      hour.groups.map((g: any) => g.ip),
      [pc1, pc2],
      'room=: only its PCs',
    );
    assert.deepEqual(hour.groups[0].hours, { off: 0, idle: h(13), session: h(47), busy: 0, unknown: 0 });

    // Before the PCs were added: no time of theirs, not time unrecorded (a site minutes old
    // counted 90 days of every PC as unknown).
    const before = await x.energy(`?from=${midnight - 3600_000}&to=${midnight}&by=center`);
    assert.deepEqual(before.total.hours, { off: 0, idle: 0, session: 0, busy: 0, unknown: 0 });

    // By day: the test day, and the next one up to now (its first hour, off).
    await x.to('25:00');
    const days = await x.energy(`?from=${midnight}&to=${at('25:00')}&by=day`);
    assert.deepEqual(
      days.groups.map((g: any) => [g.name, g.clients, g.hours.session, g.hours.off]),
      [
        ['2026-11-23', 3, h(148), byRoom.total.hours.off],
        ['2026-11-24', 3, 0, 3],
      ],
    );

    // The midnight between the two days was read once (the hourly work at 24:00), and the report by day took it.
    const [written] = await x.s.app.database.query<{ session_ms: number }>(
      'select d.session_ms from power_days d join clients c on c.id = d.client_id where c.ip = ? and d.day = ?',
      [pc1, at('24:00') / 86_400_000],
    );
    assert.equal(Number(written!.session_ms), 148 * 60_000, "the Windows PC's session time by midnight");

    const metrics = parsePrometheus((await x.s.get('/metrics')).text);
    assert.equal(metrics.value('ogserve_energy_pcs', { state: 'off' }), 3, 'all three off now');
    assert.equal(metrics.value('ogserve_energy_pcs', { state: 'session' }), 0);
    assert.ok(metrics.value('ogserve_energy_hours_total', { state: 'session' })! > 2.46, 'the session hours counted as it ended');
  } finally {
    await x.close();
  }
});

test('watts by room and by model (the make and model the hardware inventory reports) override the default, state by state', async () => {
  const x = await energySite({
    energy: {
      watts: { off: 2, idle: 50, session: 90, busy: 100 },
      models: { '*optiplex 7090*': { idle: 30 } },
      // Room B is the second room made in a fresh database.
      rooms: { '2': { off: 5 } },
    },
  });
  try {
    assert.equal(x.roomB, 2);
    const win = await x.connect(pc1, { mode: 'windows' });
    win.on('hardware', { body: { hardware: 'mod=Dell Inc. OptiPlex 7090\ncpu=Intel Core i5\n' } });
    assert.equal((await x.s.post('/hardware', { clients: [pc1] })).status, 200);
    await win.waitFor('hardware');
    await eventually(async () => (await x.entry(pc1))?.last_cmd.result === 'success', 'the hardware stored');
    // Idle again once the command is done, written before the clock moves (busy for no time).
    await x.shows(pc1, 'idle');
    await x.connect(pc2, { mode: 'windows' });
    await x.shows(pc2, 'idle');
    await x.to('10:00');
    const r = await x.energy(`?from=${midnight}&to=${at('10:00')}&by=client`);
    const kwh = Object.fromEntries(r.groups.map((g: any) => [g.ip, g.kwh]));
    assert.deepEqual(kwh[pc1], { off: 0, idle: 0.3, session: 0, busy: 0, total: 0.3 }, 'the OptiPlex: its model idles at 30 W');
    assert.deepEqual(kwh[pc2], { off: 0, idle: 0.5, session: 0, busy: 0, total: 0.5 }, 'another model: the default 50 W');
    assert.deepEqual(kwh[pc3], { off: 0.05, idle: 0, session: 0, busy: 0, total: 0.05 }, 'in room B, off at 5 W');
  } finally {
    await x.close();
  }
});

test.run();
