import assert from 'node:assert/strict';
import { test } from 'uvu';
import { hardwareText, historyRows, historySite, pc, reportHardware, start } from './helpers';

/** GET /client/history: pages, time ranges, and retention (history.retention_days) on the history's clock. */

const dayMs = 86_400_000;

test('pages newest first with next/before; from and to bound the time; retention deletes what is older, hourly', async () => {
  const x = await historySite(1, { history: { retention_days: 2 } }, '127.0.8');
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    const disks = ['dis=A 100GiB', 'dis=B 200GiB', 'dis=C 300GiB', 'dis=D 400GiB'];
    await reportHardware(x, agent, ip, hardwareText(pc.cpu, disks[0]!));
    // One swap a day: day 0, day 1, day 2 (each at 00:00 + n days).
    for (const [day, disk] of disks.slice(1).entries()) {
      await x.clock.advanceTo(start + day * dayMs);
      await reportHardware(x, agent, ip, hardwareText(pc.cpu, disk));
    }
    assert.equal(await historyRows(x), 3);

    const first = await x.s.get(`/client/history?client=${ip}&limit=2`);
    assert.deepEqual(
      first.body.changes.map((c: { after: string }) => c.after),
      ['D 400GiB', 'C 300GiB'],
    );
    assert.equal(typeof first.body.next, 'number');
    const second = await x.s.get(`/client/history?client=${ip}&limit=2&before=${first.body.next}`);
    assert.deepEqual(
      second.body.changes.map((c: { after: string; time: string }) => [c.after, c.time]),
      [['B 200GiB', new Date(start).toISOString()]],
    );
    assert.equal(second.body.next, null, 'the last page');

    const day1 = new Date(start + dayMs).toISOString();
    const ranged = await x.s.get(`/client/history?client=${ip}&from=${day1}&to=${start + dayMs}`);
    assert.deepEqual(
      ranged.body.changes.map((c: { after: string }) => c.after),
      ['C 300GiB'],
      'from and to, an ISO time and milliseconds',
    );
    const dated = await x.s.get(`/client/history?client=${ip}&from=2026-01-02`);
    assert.deepEqual(
      dated.body.changes.map((c: { after: string }) => c.after),
      ['D 400GiB', 'C 300GiB'],
      'a date alone is its midnight, UTC',
    );
    assert.deepEqual((await x.s.get(`/client/history?client=${ip}&kind=software`)).body.changes, []);

    // Two days after the first change, and an hour for the pruning to come round: it goes.
    await x.clock.advanceTo(start + 2 * dayMs + 60 * 60 * 1000);
    assert.equal(await historyRows(x), 2, 'the change of day 0 is past history.retention_days');
    const kept = await x.s.get(`/client/history?client=${ip}`);
    assert.deepEqual(
      kept.body.changes.map((c: { after: string }) => c.after),
      ['D 400GiB', 'C 300GiB'],
    );
    // A deleted client takes its history with it.
    assert.equal((await x.s.post('/client/delete', { clients: [ip] })).status, 200);
    assert.equal(await historyRows(x), 0);
  } finally {
    await x.close();
  }
});

test('retention_days 0 keeps everything', async () => {
  const x = await historySite(1, { history: { retention_days: 0 } }, '127.0.8');
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    await reportHardware(x, agent, ip, hardwareText(pc.cpu, pc.disk));
    await reportHardware(x, agent, ip, hardwareText(pc.cpu));
    await x.clock.advance(100 * 365 * dayMs);
    assert.equal(await historyRows(x), 1);
  } finally {
    await x.close();
  }
});

test.run();
