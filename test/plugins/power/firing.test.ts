import assert from 'node:assert/strict';
import { test } from 'uvu';
import { eventually } from '../../support/fake-agent';
import { everyDay, type PowerSite, powerSite } from './helpers';

const minuteMs = 60_000;

/** Move the clock to a minute before each instant (no new packet yet), then to it (one more packet per PC). */
async function wakesAt(x: PowerSite, instants: string[]): Promise<void> {
  for (const instant of instants) {
    const at = Date.parse(instant);
    const before = (await x.broadcast.flush()).length;
    await x.clock.advanceTo(at - minuteMs);
    assert.equal((await x.broadcast.flush()).length, before, `nothing before ${instant}`);
    await x.clock.advanceTo(at);
    assert.equal((await x.broadcast.flush()).length, before + x.ips.length, `a magic packet for each PC at ${instant}`);
  }
}

test('07:45 in Madrid across the spring-forward change (2027-03-28): 06:45Z before, 05:45Z after; a holiday range does nothing', async () => {
  const x = await powerSite('2027-03-26T12:00:00Z');
  try {
    const id = await x.calendar({
      target: { type: 'room', id: x.room },
      week: everyDay({ on: '07:45' }),
      holidays: [{ from: '2027-03-30', to: '2027-03-30', label: 'strike' }],
    });
    await wakesAt(x, ['2027-03-27T06:45:00Z', '2027-03-28T05:45:00Z', '2027-03-29T05:45:00Z']);
    // Tuesday the 30th is a holiday: nothing until Wednesday.
    const sent = (await x.broadcast.flush()).length;
    await x.clock.advanceTo(Date.parse('2027-03-31T05:44:00Z'));
    assert.equal((await x.broadcast.flush()).length, sent, 'nothing on the holiday');
    await wakesAt(x, ['2027-03-31T05:45:00Z']);
    assert.deepEqual(
      x.fired.map((f) => [f.calendar, f.action, f.at]),
      [
        [id, 'on', '2027-03-27T07:45:00+01:00'],
        [id, 'on', '2027-03-28T07:45:00+02:00'],
        [id, 'on', '2027-03-29T07:45:00+02:00'],
        [id, 'on', '2027-03-31T07:45:00+02:00'],
      ],
      'fired once a day at 07:45 local, the holiday left out',
    );
    assert.deepEqual(x.fired[0]!.clients, x.ips, 'every PC of the room woken');
  } finally {
    await x.close();
  }
});

test('07:45 in Madrid across the fall-back change (2026-10-25): 05:45Z before, 06:45Z after', async () => {
  const x = await powerSite('2026-10-23T12:00:00Z', 1);
  try {
    await x.calendar({ target: { type: 'center', id: x.center }, week: everyDay({ on: '07:45' }) });
    await wakesAt(x, ['2026-10-24T05:45:00Z', '2026-10-25T06:45:00Z', '2026-10-26T06:45:00Z']);
    assert.deepEqual(
      x.fired.map((f) => f.at),
      ['2026-10-24T07:45:00+02:00', '2026-10-25T07:45:00+01:00', '2026-10-26T07:45:00+01:00'],
    );
  } finally {
    await x.close();
  }
});

test('power-off skips a PC in a user session and sends poweroff to an idle ogLive and a Linux PC without one, as a job; force_off sends to both', async () => {
  // Monday 2026-11-02, winter time: 21:00 in Madrid is 20:00Z.
  const x = await powerSite('2026-11-02T12:00:00Z');
  try {
    const [live, windows, linux] = x.ips as [string, string, string];
    const liveAgent = await x.connect(live);
    const windowsAgent = await x.connect(windows, { mode: 'windows' });
    const linuxAgent = await x.connect(linux, { mode: 'linux' });
    windowsAgent.event('start', 'alice');
    await eventually(async () => (await x.entry(windows))?.state === 'WINS', 'windows PC in a session');
    const id = await x.calendar({ target: { type: 'room', id: x.room }, week: everyDay({ off: '21:00' }) });

    await x.clock.advanceTo(Date.parse('2026-11-02T19:59:00Z'));
    assert.equal(x.fired.length, 0, 'nothing before 21:00');
    await x.clock.advanceTo(Date.parse('2026-11-02T20:00:00Z'));
    await liveAgent.waitFor('poweroff');
    await linuxAgent.waitFor('poweroff');
    // Told once the job is written, which may come after the agents have their poweroff.
    await eventually(async () => x.fired.length > 0, 'the calendar fired');
    assert.equal(x.fired.length, 1, 'fired once');
    const { job, ...fired } = x.fired[0]!;
    assert.deepEqual(fired, {
      calendar: id,
      action: 'off',
      at: '2026-11-02T21:00:00+01:00',
      clients: [live, linux],
      skipped: [{ client: windows, reason: 'user_session' }],
    });
    assert.equal(windowsAgent.requests.filter((r) => r.path === 'poweroff').length, 0, 'the session PC was not sent poweroff');
    const jobs = await x.s.get('/jobs?kind=poweroff');
    assert.equal(jobs.status, 200, jobs.text);
    assert.equal(jobs.body.jobs.length, 1, 'the power-off is a job');
    assert.equal(jobs.body.jobs[0].id, job, 'the event names its job');
    assert.deepEqual(
      [jobs.body.jobs[0].who, jobs.body.jobs[0].source],
      ['Room', 'calendar'],
      'asked by the calendar of the room, by its name',
    );
    assert.equal(jobs.body.jobs[0].total, 2);

    // Forced: the next evening both the session PC and an idle one are powered off.
    const r = await x.s.post(`/power/calendars/${id}`, {
      target: { type: 'room', id: x.room },
      week: everyDay({ off: '21:00' }),
      force_off: true,
    });
    assert.equal(r.status, 200, r.text);
    await eventually(async () => (await x.entry(live)) === undefined, 'the ogLive PC went off');
    const liveAgain = await x.connect(live);
    await x.clock.advanceTo(Date.parse('2026-11-03T20:00:00Z'));
    await windowsAgent.waitFor('poweroff');
    await liveAgain.waitFor('poweroff');
    await eventually(async () => x.fired.length > 1, 'the calendar fired again');
    assert.deepEqual(x.fired[1]!.clients.sort(), [live, windows].sort(), 'both sent poweroff');
    assert.deepEqual(x.fired[1]!.skipped, [{ client: linux, reason: 'not_connected' }], 'the PC already off is only noted');
  } finally {
    await x.close();
  }
});

test('power-off leaves a PC running a command (an image restore, say) alone unless forced', async () => {
  const x = await powerSite('2026-11-02T12:00:00Z', 2);
  try {
    const [busy, idle] = x.ips as [string, string];
    const busyAgent = await x.connect(busy);
    const idleAgent = await x.connect(idle);
    // A refresh the agent never answers keeps it busy.
    busyAgent.on('refresh', { none: true });
    const sent = await x.s.post('/refresh', { clients: [busy] });
    assert.equal(sent.status, 200, sent.text);
    await eventually(async () => (await x.entry(busy))?.state === 'BSY', 'the PC busy');
    await x.calendar({ target: { type: 'room', id: x.room }, week: everyDay({ off: '21:00' }) });
    await x.clock.advanceTo(Date.parse('2026-11-02T20:00:00Z'));
    await idleAgent.waitFor('poweroff');
    await eventually(async () => x.fired.length > 0, 'the calendar fired');
    assert.deepEqual(
      x.fired.map((f) => [f.clients, f.skipped]),
      [[[idle], [{ client: busy, reason: 'busy' }]]],
    );
    assert.equal(busyAgent.requests.filter((r) => r.path === 'poweroff').length, 0, 'the busy PC was not sent poweroff');
  } finally {
    await x.close();
  }
});

test.run();
