// Engine-independent: runs once, on SQLite.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { container } from 'tsyringe';
import { test } from 'uvu';
import { ManualClock } from '../../../testing';
import { systemTimeZone } from '../../../plugins/inventory';
import { PowerClock } from '../../../plugins/power';
import { SchedulerClock } from '../../../plugins/scheduler';
import { eventually } from '../../support/fake-agent';
import { addresses, startLab } from '../../support/lab';
import { startServer } from '../../support/server';
import { UdpReceiver } from '../../support/udp-receiver';

/** A zone unlike the host's, with daylight saving of its own. */
const zone = systemTimeZone() === 'Pacific/Auckland' ? 'America/New_York' : 'Pacific/Auckland';
/** Monday 2 November 2026, 00:00 UTC: where both clocks start. */
const start = Date.parse('2026-11-02T00:00:00Z');

test('site.time_zone is the one clock: a schedule and a power calendar at 07:45 fire at the same instant, 07:45 in that zone, whatever the host says', async () => {
  const broadcast = await UdpReceiver.bind('127.255.255.255');
  const schedulerClock = new ManualClock(start);
  const powerClock = new ManualClock(start);
  const services = container.createChildContainer();
  services.register(SchedulerClock, { useValue: schedulerClock });
  services.register(PowerClock, { useValue: powerClock });
  const lab = await startLab({
    ips: addresses('127.0.21', 1),
    netmask: '255.0.0.0',
    server: {
      container: services,
      config: {
        site: { time_zone: zone },
        plugins: ['inventory', 'agents', 'wol', 'jobs', 'groups', 'scheduler', 'power'],
        wol: { port: broadcast.port },
      },
    },
    onAgent: (agent) => agent.on('run/schedule', { status: 200 }, true),
  });
  try {
    const { s, center, room } = lab;
    assert.deepEqual((await s.get('/site')).body, { time_zone: zone, source: 'site.time_zone' });
    const everyDay = { on: '07:45' };
    const week = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, everyDay]));
    assert.equal((await s.post('/power/calendars', { target: { type: 'room', id: room }, week })).status, 200);
    const calendars = (await s.get('/power/calendars')).body;
    assert.deepEqual(
      [calendars.time_zone, calendars.time_zone_source, calendars.site_time_zone],
      [zone, 'site.time_zone', zone],
      "power follows the site's zone",
    );

    const procedure = (await s.post('/procedure/add', { center, name: 'refresh', steps: [{ command: 'refresh' }] })).body.id;
    const task = (await s.post('/task/add', { center, name: 'morning', steps: [{ procedure }], scope: { type: 'room', id: room } })).body
      .id;
    const when = { years: [2026], months: 4095, weeks: 0, week_days: 127, days: 0, hours: 1 << 7, am_pm: 0, minutes: 45 };
    const created = await s.post('/schedule/create', { task: String(task), name: 'morning', type: 'task', when });
    assert.equal(created.status, 200, created.text);
    const next = (await s.post('/schedule/get', { id: String(created.body.id) })).body.schedule[0].next as number;
    const first = (await s.get('/power/calendar/preview?days=2')).body.actions[0];
    assert.equal(next, Date.parse(first.at), `the schedule (${new Date(next).toISOString()}) and the calendar (${first.at}) agree`);
    const local = new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit' }).format(next);
    assert.equal(local, '07:45', `07:45 in ${zone}`);

    // Both fire at that instant.
    const fired: { at: string }[] = [];
    s.app.events.on('test', 'power.calendar.fired', (event) => void fired.push(event));
    const agent = await lab.connect(lab.ips[0]!);
    await Promise.all([schedulerClock.advanceTo(next), powerClock.advanceTo(next)]);
    await agent.waitFor('refresh', 1);
    const job = await eventually(async () => (await s.get('/jobs?kind=refresh')).body.jobs[0], 'the schedule is a job');
    assert.deepEqual([job.who, job.source], ['morning', 'schedule'], 'asked by the schedule, by its name');
    await eventually(async () => fired.length > 0, 'the calendar fired');
    assert.equal(Date.parse(fired[0]!.at), next, 'at the same instant');
  } finally {
    await lab.close();
    await broadcast.close();
  }
});

test('a site.time_zone Intl does not know stops the start, naming the key', async () => {
  await assert.rejects(
    startServer({ config: { site: { time_zone: 'Mars/Olympus' }, plugins: ['inventory'] } }),
    /site\.time_zone: 'Mars\/Olympus' is not an IANA time zone/,
  );
});

test.run();
