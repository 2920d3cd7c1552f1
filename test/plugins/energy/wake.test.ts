// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { at, energySite, roomA, roomB } from './helpers';

const pc1 = roomA[0]!;
const pc3 = roomB[0]!;

test('a PC woken by wake-on-LAN is busy (booting) until its agent connects, or off again after energy.wake_window_s', async () => {
  const x = await energySite({ energy: { wake_window_s: 600 } });
  try {
    await x.to('07:00');
    assert.equal((await x.s.post('/wol', { clients: [pc3], type: 'broadcast' })).status, 200);
    await x.shows(pc3, 'busy');
    await x.to('07:10');
    await x.shows(pc3, 'off');

    await x.to('07:20');
    assert.equal((await x.s.post('/wol', { clients: [pc1], type: 'broadcast' })).status, 200);
    await x.shows(pc1, 'busy');
    await x.to('07:25');
    await x.connect(pc1, { mode: 'windows' });
    await x.shows(pc1, 'idle');
    // Its wake window ends with nothing to end: the agent came up.
    await x.to('08:00');
    await x.shows(pc1, 'idle');

    const r = await x.energy(`?from=${at('07:00')}&to=${at('08:00')}&by=client`);
    const hours = Object.fromEntries(r.groups.map((g: any) => [g.ip, g.hours]));
    const h = (minutes: number) => Math.round((minutes / 60) * 10_000) / 10_000;
    assert.deepEqual(hours[pc3], { off: h(50), idle: 0, session: 0, busy: h(10), unknown: 0 }, 'woken, never came up');
    assert.deepEqual(hours[pc1], { off: h(20), idle: h(35), session: 0, busy: h(5), unknown: 0 }, 'woken, came up');
    assert.equal((await x.udp.waitFor(2)).length, 2, 'a magic packet for each wake');
  } finally {
    await x.close();
  }
});

test.run();
