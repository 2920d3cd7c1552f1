import assert from 'node:assert/strict';
import { test } from 'uvu';
import { eventually } from '../../support/fake-agent';
import { parsePrometheus } from '../../support/prometheus';
import { addClient, macFor } from '../../support/fixtures';
import { makeTestDir, removeTestStore } from '../../support/server';
import { at, energySite, midnight, roomA, roomB } from './helpers';

const [pc1, pc2] = roomA as [string, string];
const pc3 = roomB[0]!;

test('the history is kept across a restart: the time the server was down counts in no state, every PC off again from the start', async () => {
  const dir = makeTestDir();
  try {
    const x = await energySite({}, { dir });
    try {
      await x.to('08:00');
      await x.connect(pc1, { mode: 'windows' });
      await x.shows(pc1, 'idle');
      await x.to('10:00');
    } finally {
      // The service stops with the agent still connected, as in production.
      await x.close();
    }
    const y = await energySite({}, { dir, populate: false, start: at('12:00') });
    try {
      await y.to('14:00');
      const r = await y.energy(`?from=${midnight}&to=${at('14:00')}&by=client`);
      const hours = Object.fromEntries(r.groups.map((g: any) => [g.ip, g.hours]));
      assert.deepEqual(hours[pc1], { off: 10, idle: 2, session: 0, busy: 0, unknown: 2 }, 'off 0-8 and 12-14, idle 8-10, down 10-12');
      assert.deepEqual(hours[pc2], { off: 12, idle: 0, session: 0, busy: 0, unknown: 2 });
      assert.deepEqual(hours[pc3], hours[pc2]);
      const now = (await y.s.get('/energy/now')).body;
      assert.deepEqual(
        now.rooms[0].pcs.map((pc: any) => [pc.ip, pc.state, pc.since]),
        [
          [pc1, 'off', new Date(at('12:00')).toISOString()],
          [pc2, 'off', new Date(at('12:00')).toISOString()],
        ],
      );
    } finally {
      await y.close();
    }
  } finally {
    await removeTestStore(dir);
  }
});

test('rows that ended more than energy.retention_days ago are deleted; the totals of the rows kept are unchanged', async () => {
  const x = await energySite({ energy: { retention_days: 1 } });
  try {
    await x.to('06:00');
    await x.connect(pc1, { mode: 'windows' });
    await x.shows(pc1, 'idle');
    await x.to('07:00');
    await x.agents[0]!.close();
    await x.shows(pc1, 'off');
    const week = `?from=${midnight}&to=${midnight + 7 * 86_400_000}&by=client`;
    // Two days later the hourly pruning has deleted the rows that ended on the first day.
    await x.clock.advanceTo(midnight + 2 * 86_400_000 + 3_600_000);
    const [rows] = await x.s.app.database.query<{ n: number | string }>('select count(*) as n from power_states');
    assert.equal(Number(rows!.n), 3, 'the open row of each PC is left');
    const r = await x.energy(week);
    const pc1Hours = r.groups.find((g: any) => g.ip === pc1).hours;
    assert.equal(pc1Hours.idle, 0, 'the idle hour went with its row');
    assert.deepEqual([pc1Hours.off, pc1Hours.unknown], [42, 7], 'off from 07:00, when its open row began; before it, no record');

    // A client deleted: its rows go with it, and the metrics stop counting it.
    assert.equal((await x.s.post('/client/delete', { clients: [pc1] })).status, 200);
    await eventually(async () => {
      const metrics = parsePrometheus((await x.s.get('/metrics')).text);
      return metrics.value('ogserve_energy_pcs', { state: 'off' }) === 2;
    }, 'two PCs off');
    const [left] = await x.s.app.database.query<{ n: number | string }>('select count(*) as n from power_states');
    assert.equal(Number(left!.n), 2);
  } finally {
    await x.close();
  }
});

test("clients deleted while their agents' states are written are deleted, round after round: the writes take the client's row first, as a deletion does", async () => {
  const x = await energySite();
  try {
    // Each round: an agent connects and goes (state rows written) as its client is deleted.
    // Before the writes took the client's row first, this deadlocked now and then on PostgreSQL.
    for (let i = 0; i < 40; i++) {
      const ip = `127.0.73.${i + 1}`;
      await addClient(x.s, x.roomA, ip, macFor(50 + i));
      const agent = await x.connect(ip);
      agent.destroy();
      const r = await x.s.post('/client/delete', { clients: [ip] });
      assert.equal(r.status, 200, `round ${i}: ${r.text}`);
    }
  } finally {
    await x.close();
  }
});

test.run();
