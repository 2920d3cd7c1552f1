import assert from 'node:assert/strict';
import { test } from 'uvu';
import { eventually } from '../../support/fake-agent';
import { addClient, macFor } from '../../support/fixtures';
import { everyDay, powerSite } from '../power/helpers';

test("a power calendar on a group wakes the group's PCs at the time it fires, found then: a PC added after the calendar is woken too", async () => {
  // Monday 2026-11-02, winter time: 07:45 in Madrid is 06:45Z.
  const x = await powerSite('2026-11-02T12:00:00Z', 2);
  try {
    const group = await x.s.post('/groups', { name: 'Room', filter: { within: { type: 'room', id: x.room } } });
    assert.equal(group.status, 200, group.text);
    const id = await x.calendar({ target: { type: 'group', id: group.body.id }, week: everyDay({ on: '07:45' }) });
    await addClient(x.s, x.room, '127.0.9.3', macFor(0x93));
    await x.clock.advanceTo(Date.parse('2026-11-03T06:45:00Z'));
    assert.equal(x.fired.length, 1, 'fired once');
    assert.deepEqual([x.fired[0]!.calendar, x.fired[0]!.clients], [id, [...x.ips, '127.0.9.3']], "the group's PCs at 07:45");
    // The job is written by the jobs plugin's queue, after the firing.
    const job = await eventually(async () => (await x.s.get('/jobs?kind=wol')).body.jobs?.[0], 'the wake job written');
    assert.deepEqual([job.who, job.source], ['Room', 'calendar'], "asked by the calendar, by the group's name");
  } finally {
    await x.close();
  }
});

test.run();
