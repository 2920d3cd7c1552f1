import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { schedulerSite, type SchedulerSite } from './helpers';

async function withSite(fn: (site: SchedulerSite) => Promise<void>): Promise<void> {
  const site = await schedulerSite();
  try {
    await fn(site);
  } finally {
    await site.close();
  }
}

/** Mondays and Wednesdays at 08:00, every month of 2026 and 2027: what the console writes for a weekly schedule. */
const WEEKLY = { years: [2026, 2027], months: 2 ** 12 - 1, weeks: 0, week_days: 0b101, days: 0, hours: 1 << 8, am_pm: 0, minutes: 0 };
const MONDAY = new Date(2026, 10, 23, 8, 0).getTime();
const WEDNESDAY = new Date(2026, 10, 25, 8, 0).getTime();
const NEXT_MONDAY = new Date(2026, 10, 30, 8, 0).getTime();

/** A task running one script for the room's two clients. */
async function roomTask(site: SchedulerSite): Promise<number> {
  const { s, center, room } = site;
  const p = (await s.post('/procedure/add', { center, name: 'p', steps: [{ command: 'run', params: { run: 'echo hi' } }] })).body.id;
  return (await s.post('/task/add', { center, name: 't', steps: [{ procedure: p }], scope: { type: 'room', id: room } })).body.id;
}

test('a weekly schedule suspended through schedule/update does not fire; resumed, it fires at its next time', () =>
  withSite(async (site) => {
    const { s, scheduler, clock } = site;
    const task = await roomTask(site);
    const created = await s.post('/schedule/create', { task: String(task), name: 'weekly', type: 'task', when: WEEKLY });
    assert.equal(created.status, 200, created.text);
    const id = created.body.id;
    const shown = async () => (await s.post('/schedule/get', { id })).body.schedule[0];
    assert.deepEqual([(await shown()).suspended, (await shown()).next], [0, MONDAY], 'armed for Monday 08:00');
    await clock.advanceTo(MONDAY);
    assert.equal((await scheduler.actions()).length, 2, 'fired on Monday for both clients');

    const update = { id, task, name: 'weekly', when: WEEKLY };
    const off = await s.post('/schedule/update', { ...update, suspended: 1 });
    assert.equal(off.status, 200, off.text);
    assert.deepEqual([(await shown()).suspended, (await shown()).next], [1, undefined], 'suspended, no next time');
    // The reference's update, without `suspended`, leaves the schedule suspended.
    assert.equal((await s.post('/schedule/update', update)).status, 200, 'update in the reference shape');
    assert.equal((await shown()).suspended, 1, 'still suspended');
    await clock.advanceTo(WEDNESDAY + 60_000);
    assert.equal((await scheduler.actions()).length, 2, 'nothing on Wednesday while suspended');

    const on = await s.post('/schedule/update', { ...update, suspended: false });
    assert.equal(on.status, 200, on.text);
    assert.deepEqual([(await shown()).suspended, (await shown()).next], [0, NEXT_MONDAY], 'resumed: next Monday, Wednesday skipped');
    await clock.advanceTo(NEXT_MONDAY);
    assert.equal((await scheduler.actions()).length, 4, 'fired again the next Monday');
  }));

test('schedule/create with suspended set writes it suspended: without `when` it does not fire at once; a bad value is refused', () =>
  withSite(async (site) => {
    const { s, scheduler } = site;
    const task = await roomTask(site);
    const bad = await s.post('/schedule/create', { task, name: 'x', type: 'task', when: WEEKLY, suspended: 2 });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.body.field, 'suspended', `the field named: ${bad.text}`);
    const badUpdate = await s.post('/schedule/update', { id: 1, task, name: 'x', when: WEEKLY, suspended: 'yes' });
    assert.equal(badUpdate.body.field, 'suspended', `the field named on update: ${badUpdate.text}`);
    assert.equal((await s.post('/schedule/get')).body.schedule.length, 0, 'nothing written');

    const r = await s.post('/schedule/create', { task, name: 'held', type: 'task', suspended: true });
    assert.equal(r.status, 200, r.text);
    assert.equal((await scheduler.actions()).length, 0, 'not fired');
    const listed = (await s.post('/schedule/get', { id: r.body.id })).body.schedule[0];
    assert.deepEqual([listed.suspended, listed.next], [1, undefined], 'listed suspended');
  }));

test('a suspended schedule stays suspended across a restart and does not fire', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-sched-'));
  try {
    const first = await schedulerSite({ dir });
    try {
      const task = await roomTask(first);
      const r = await first.s.post('/schedule/create', { task, name: 'weekly', type: 'task', when: WEEKLY, suspended: 1 });
      assert.equal(r.status, 200, r.text);
    } finally {
      await first.close();
    }
    const second = await schedulerSite({ dir, populate: false });
    try {
      const listed = (await second.s.post('/schedule/get')).body.schedule[0];
      assert.deepEqual([listed.suspended, listed.next], [1, undefined], 'still suspended after the restart');
      await second.clock.advanceTo(NEXT_MONDAY);
      assert.equal((await second.scheduler.actions()).length, 0, 'never fired');
    } finally {
      await second.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
