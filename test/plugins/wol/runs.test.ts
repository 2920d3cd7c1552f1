// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { ManualClock } from '../../../testing';
import { Inventory } from '../../../plugins/inventory';
import { PacingTable } from '../../../plugins/wol/pacing';
import type { SendResult, Target } from '../../../plugins/wol/run';
import { WakeRuns } from '../../../plugins/wol/runs';
import { eventually } from '../../support/fake-agent';
import { macFor } from '../../support/fixtures';
import { parsePrometheus } from '../../support/prometheus';
import { send, startServer, TOKEN } from '../../support/server';
import { expectedPacket, noSkips, type WolSite, wolSite } from './helpers';

/**
 * Wake runs on the wol plugin's manual clock, with real UDP receivers: bursts, intervals,
 * repeats, cancel, per-room pacing; fake agents that connect or never do (retries, wake_failed).
 */

const start = 1_800_000_000_000;

/** Which clients (by index in x.ips) the packets that reached the room broadcast so far were for, in order. */
async function wokenSoFar(x: WolSite): Promise<number[]> {
  const byPacket = new Map(x.ips.map((_, i) => [expectedPacket(macFor(i + 1)).toString('hex'), i]));
  return (await x.broadcast.flush()).map((p) => byPacket.get(p.data.toString('hex')) ?? -1);
}

async function runOf(x: WolSite, id: number) {
  const r = await x.s.get(`/wol/runs/${id}`);
  assert.equal(r.status, 200, `GET /wol/runs/${id}: ${r.text}`);
  return r.body;
}

const statesOf = (run: { clients: { addr: string; state: string }[] }) => Object.fromEntries(run.clients.map((c) => [c.addr, c.state]));

test('paced: wol.batch clients per burst, wol.interval_ms apart; the answer names the run and every client it wakes', async () => {
  const clock = new ManualClock(start);
  const x = await wolSite({ count: 5, clock, wol: { batch: 2, interval_ms: 2000, verify_s: 0 } });
  try {
    const r = await x.s.post('/wol', { clients: x.ips, type: 'broadcast' });
    assert.deepEqual(r.body, { run: 1, sent: x.ips, skipped: noSkips }, 'answered at once, queued clients included');
    assert.deepEqual(await wokenSoFar(x), [0, 1], 'the first burst left before the answer');
    const first = await runOf(x, 1);
    assert.equal(first.state, 'running');
    assert.deepEqual(first.states, { sent: 2, queued: 3 }, 'two sent, three queued');
    assert.deepEqual(
      (await x.clients()).map((c) => c.addr),
      x.ips.slice(0, 2),
      'only the sent ones are WOL_SENT',
    );
    await clock.advance(1999);
    assert.deepEqual(await wokenSoFar(x), [0, 1], 'nothing before the interval');
    await clock.advance(1);
    assert.deepEqual(await wokenSoFar(x), [0, 1, 2, 3], 'the second burst at 2 s');
    await clock.advance(2000);
    assert.deepEqual(await wokenSoFar(x), [0, 1, 2, 3, 4], 'the last client at 4 s');
    const last = await runOf(x, 1);
    assert.equal(last.state, 'done', 'nothing left to send or check');
    assert.equal(last.finished, new Date(start + 4000).toISOString());
    assert.deepEqual(
      last.clients.map((c: { sent: string; packets: number; tries: number }) => [c.sent, c.packets, c.tries]),
      [0, 0, 2000, 2000, 4000].map((ms) => [new Date(start + ms).toISOString(), 1, 1]),
      'each client one packet, at its burst',
    );
    assert.equal(last.who, 'api_token', 'who asked');
  } finally {
    await x.close();
  }
});

test('repeats: wol.repeats packets per client, wol.repeat_ms apart; the next burst does not wait for them', async () => {
  const clock = new ManualClock(start);
  const x = await wolSite({ count: 2, clock, wol: { batch: 1, interval_ms: 1000, repeats: 3, repeat_ms: 400, verify_s: 0 } });
  try {
    await x.s.post('/wol', { clients: x.ips, type: 'broadcast' });
    const seen: number[][] = [await wokenSoFar(x)];
    for (const to of [399, 400, 800, 1000, 1400, 1800]) {
      await clock.advanceTo(start + to);
      seen.push(await wokenSoFar(x));
    }
    assert.deepEqual(
      seen,
      [[0], [0], [0, 0], [0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 1, 1], [0, 0, 0, 1, 1, 1]],
      'at 0, 399, 400, 800, 1000, 1400 and 1800 ms',
    );
    const run = await runOf(x, 1);
    assert.equal(run.state, 'done');
    assert.deepEqual(
      run.clients.map((c: { packets: number }) => c.packets),
      [3, 3],
    );
  } finally {
    await x.close();
  }
});

test('cancel: DELETE /wol/runs/<id> stops the bursts and checks; its clients not yet ended are cancelled', async () => {
  const clock = new ManualClock(start);
  const x = await wolSite({ count: 3, clock, wol: { batch: 1, interval_ms: 1000 } });
  try {
    await x.s.post('/wol', { clients: x.ips, type: 'broadcast' });
    await clock.advance(1000);
    assert.deepEqual(await wokenSoFar(x), [0, 1]);
    const r = await send(x.s.port, 'DELETE', '/wol/runs/1', undefined, { Authorization: TOKEN });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { id: 1, state: 'cancelled' });
    await clock.advance(600_000);
    assert.deepEqual(await wokenSoFar(x), [0, 1], 'no packet after the cancel, and no retry');
    const run = await runOf(x, 1);
    assert.equal(run.state, 'cancelled');
    assert.deepEqual(statesOf(run), { [x.ips[0]!]: 'cancelled', [x.ips[1]!]: 'cancelled', [x.ips[2]!]: 'cancelled' });
    const again = await send(x.s.port, 'DELETE', '/wol/runs/1', undefined, { Authorization: TOKEN });
    assert.equal(again.status, 400, again.text);
    assert.equal(again.body.field, 'id', 'an ended run cannot be cancelled');
    for (const [path, status] of [
      ['/wol/runs/9', 404],
      ['/wol/runs/x', 400],
      ['/wol/runs/0', 400],
    ] as const) {
      const bad = await send(x.s.port, 'DELETE', path, undefined, { Authorization: TOKEN });
      assert.equal(bad.status, status, `DELETE ${path}: ${bad.text}`);
      const read = await x.s.get(path);
      assert.equal(read.status, status, `GET ${path}: ${read.text}`);
      if (status === 400) assert.equal(read.body.field, 'id', `${path} names the id`);
    }
  } finally {
    await x.close();
  }
});

test('a room in wol.rooms gets its own bursts beside the site, which wakes its clients at once', async () => {
  const clock = new ManualClock(start);
  // The lab's room is room 1; room 2, made below, is on one circuit.
  const x = await wolSite({ count: 4, clock, wol: { rooms: { '2': { batch: 1, interval_ms: 1000 } }, verify_s: 0 } });
  try {
    const circuit = (await x.s.post('/room/add', { center: x.center, name: 'Circuit', netmask: '255.0.0.0' })).body.id as number;
    assert.equal(circuit, 2);
    await x.s.app.database.query('update clients set room_id = ? where ip in (?, ?)', [circuit, x.ips[2], x.ips[3]]);
    x.s.app.container.resolve(Inventory).tablesChanged();
    await x.s.post('/wol', { clients: x.ips, type: 'broadcast' });
    assert.deepEqual((await wokenSoFar(x)).sort(), [0, 1, 2], 'room 1 all at once, and the first of room 2');
    await clock.advance(1000);
    assert.deepEqual((await wokenSoFar(x)).slice(3), [3], 'the second of room 2 a second later');
  } finally {
    await x.close();
  }
});

test('pacing: a room entry sets what it names over its center’s, its center’s over the site’s; other rooms share the site lane', () => {
  const table = new PacingTable({
    batch: 0,
    interval_ms: 0,
    repeats: 2,
    repeat_ms: 500,
    rooms: { '7': { batch: 5 } },
    centers: { '3': { interval_ms: 2000, repeats: 3 } },
  });
  assert.deepEqual(table.laneOf({ id: 7, centerId: 3 }), {
    key: 'room 7',
    pacing: { batch: 5, interval_ms: 2000, repeats: 3, repeat_ms: 500 },
  });
  assert.deepEqual(table.laneOf({ id: 8, centerId: 3 }), {
    key: 'center 3',
    pacing: { batch: 0, interval_ms: 2000, repeats: 3, repeat_ms: 500 },
  });
  assert.deepEqual(table.laneOf({ id: 7, centerId: 4 }).pacing, { batch: 5, interval_ms: 0, repeats: 2, repeat_ms: 500 });
  assert.deepEqual(table.laneOf({ id: 9, centerId: 4 }), { key: 'site', pacing: { batch: 0, interval_ms: 0, repeats: 2, repeat_ms: 500 } });
});

test('bad pacing config stops the start, naming the key', async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ rooms: { lab: { batch: 5 } } }, /wol\.rooms: 'lab' is not a room id/],
    [{ centers: { '0': {} } }, /wol\.centers: '0' is not a center id/],
    [{ rooms: { '2': { batch: -1 } } }, /wol\.rooms/],
    [{ rooms: { '2': { pace: 1 } } }, /wol\.rooms/],
    [{ repeats: 0 }, /wol\.repeats/],
    [{ verify_s: -1 }, /wol\.verify_s/],
  ];
  for (const [wol, message] of cases) {
    await assert.rejects(startServer({ config: { plugins: ['inventory', 'agents', 'wol'], wol } }), (error: Error) => {
      assert.match(error.message, message, JSON.stringify(wol));
      return true;
    });
  }
});

test('verified: a client whose agent does not connect is woken again wol.retries times, then wake_failed (never seen); one that connects is awake', async () => {
  const clock = new ManualClock(start);
  const x = await wolSite({ count: 2, clock, plugins: ['metrics'], wol: { verify_s: 60, retries: 1 } });
  try {
    await x.s.post('/wol', { clients: x.ips, type: 'broadcast' });
    assert.deepEqual(await wokenSoFar(x), [0, 1]);
    await x.connect(x.ips[0]!);
    await eventually(async () => statesOf(await runOf(x, 1))[x.ips[0]!] === 'awake', 'the first awake');
    await clock.advance(59_999);
    assert.deepEqual(await wokenSoFar(x), [0, 1], 'no retry before wol.verify_s');
    await clock.advance(1);
    assert.deepEqual(await wokenSoFar(x), [0, 1, 1], 'the silent one woken again at 60 s, the awake one not');
    let run = await runOf(x, 1);
    assert.deepEqual(statesOf(run), { [x.ips[0]!]: 'awake', [x.ips[1]!]: 'sent' });
    assert.equal(run.clients[1].tries, 2);
    await clock.advance(60_000);
    assert.deepEqual(await wokenSoFar(x), [0, 1, 1], 'no third wake: one retry');
    run = await runOf(x, 1);
    assert.equal(run.state, 'done');
    assert.deepEqual(run.clients[1], {
      addr: x.ips[1],
      room: x.room,
      state: 'wake_failed',
      tries: 2,
      packets: 2,
      sent: new Date(start + 60_000).toISOString(),
      ended: new Date(start + 120_000).toISOString(),
      reason: 'never_seen',
      outcome: 'no agent was ever seen at this address: is an agent installed, and the address right?',
    });
    const metrics = parsePrometheus((await x.s.get('/metrics')).text);
    assert.equal(metrics.value('ogserve_wol_wake_failed_total', { reason: 'never_seen' }), 1, 'counted');
    assert.deepEqual(
      (await x.s.get('/wol/failed')).body.clients,
      [{ addr: x.ips[1], run: 1, reason: 'never_seen', outcome: run.clients[1].outcome, ended: new Date(start + 120_000).toISOString() }],
      'GET /wol/failed lists it',
    );
    await x.connect(x.ips[1]!);
    assert.deepEqual((await x.s.get('/wol/failed')).body.clients, [], 'until its agent connects');
  } finally {
    await x.close();
  }
});

test('why a seen client did not wake: its MAC when others of its room woke, the room network when none did', async () => {
  const clock = new ManualClock(start);
  const x = await wolSite({ count: 3, clock, wol: { verify_s: 60 } });
  try {
    // Each agent seen once, then gone: the clients are off but known to run an agent.
    for (const ip of x.ips) {
      const agent = await x.connect(ip);
      agent.destroy();
      await eventually(() => !x.link.isConnected(ip), `${ip} gone`);
    }
    await x.s.post('/wol', { clients: x.ips, type: 'broadcast' });
    await x.connect(x.ips[0]!);
    await clock.advance(60_000);
    const mac = await runOf(x, 1);
    assert.deepEqual(
      mac.clients.map((c: { state: string; reason: string | null }) => [c.state, c.reason]),
      [
        ['awake', null],
        ['wake_failed', 'mac'],
        ['wake_failed', 'mac'],
      ],
    );
    const failed = (await x.s.get('/wol/runs/1?state=wake_failed')).body;
    assert.deepEqual(
      failed.clients.map((c: { addr: string }) => c.addr),
      x.ips.slice(1),
      '?state= lists only those clients',
    );
    assert.deepEqual([failed.total, failed.states], [3, { awake: 1, wake_failed: 2 }], 'and still counts them all');
    const bad = await x.s.get('/wol/runs/1?state=asleep');
    assert.deepEqual([bad.status, bad.body.field], [400, 'state'], bad.text);
    await x.s.post('/wol', { clients: x.ips.slice(1), type: 'broadcast' });
    await clock.advance(60_000);
    const room = await runOf(x, 2);
    assert.deepEqual(
      room.clients.map((c: { reason: string | null }) => c.reason),
      ['room_network', 'room_network'],
    );
    const one = await x.s.post('/wol', { clients: [x.ips[1]], type: 'unicast' });
    await clock.advance(60_000);
    assert.equal((await runOf(x, one.body.run)).clients[0].reason, 'no_agent', 'alone in the run: only that its agent did not connect');
    const list = await x.s.get('/wol/runs');
    assert.deepEqual(
      list.body.runs.map((r: { id: number; states: Record<string, number> }) => [r.id, r.states]),
      [
        [3, { wake_failed: 1 }],
        [2, { wake_failed: 2 }],
        [1, { awake: 1, wake_failed: 2 }],
      ],
      'GET /wol/runs, newest first',
    );
  } finally {
    await x.close();
  }
});

test('a token limited to a room sees the runs touching its clients, only those clients, and cancels only a run all of its own', async () => {
  const clock = new ManualClock(start);
  const x = await wolSite({ count: 3, clock, plugins: ['tokens'] });
  try {
    const other = (await x.s.post('/room/add', { center: x.center, name: 'Other', netmask: '255.0.0.0' })).body.id as number;
    await x.s.app.database.query('update clients set room_id = ? where ip = ?', [other, x.ips[2]]);
    x.s.app.container.resolve(Inventory).tablesChanged();
    const made = await x.s.post('/tokens', { name: 'lab', role: 'operator', rooms: [x.room] });
    assert.equal(made.status, 200, made.text);
    const key = { Authorization: made.body.secret as string };
    const as = (method: string, path: string, body?: unknown) => send(x.s.port, method, path, body, key);

    assert.equal((await x.s.post('/wol', { clients: x.ips, type: 'broadcast' })).body.run, 1);
    assert.equal((await as('POST', '/wol', { clients: [x.ips[0]], type: 'broadcast' })).body.run, 2);
    assert.equal((await x.s.post('/wol', { clients: [x.ips[2]], type: 'broadcast' })).body.run, 3);

    const list = await as('GET', '/wol/runs');
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(
      list.body.runs.map((r: { id: number; total: number; who: string }) => [r.id, r.total, r.who]),
      [
        [2, 1, 'lab'],
        [1, 2, 'api_token'],
      ],
      'run 3 wakes none of its clients',
    );
    assert.deepEqual(
      (await as('GET', '/wol/runs/1')).body.clients.map((c: { addr: string }) => c.addr),
      x.ips.slice(0, 2),
      'its clients only',
    );
    assert.equal((await as('GET', '/wol/runs/3')).status, 404, 'a run of none of its clients is no run to it');
    assert.equal((await as('DELETE', '/wol/runs/3')).status, 404);
    const mixed = await as('DELETE', '/wol/runs/1');
    assert.deepEqual([mixed.status, mixed.body.error], [403, 'forbidden'], 'run 1 wakes a client outside its room');
    assert.equal((await runOf(x, 1)).state, 'running', 'and runs on');
    assert.equal((await as('DELETE', '/wol/runs/2')).status, 200, 'its own run');
    await clock.advance(300_000);
    assert.deepEqual(
      (await as('GET', '/wol/failed')).body.clients.map((c: { addr: string }) => c.addr),
      x.ips.slice(0, 2),
      'of the clients that did not wake, its own',
    );
    assert.equal((await x.s.get('/wol/failed')).body.clients.length, 3, 'the whole fleet sees every one');
  } finally {
    await x.close();
  }
});

test("a run's check asks whether the agent is connected: one that connected at another instance is awake, not woken again", async () => {
  const clock = new ManualClock(start);
  // Agents connected at another instance: this one hears no agent.connected of theirs.
  const elsewhere = new Set<string>();
  const config = { batch: 0, interval_ms: 0, repeats: 1, repeat_ms: 1000, rooms: {}, centers: {}, verify_s: 60, retries: 1, runs_kept: 5 };
  const runs = new WakeRuns(config, clock, { diskSetups: async () => new Map() }, { isConnected: (ip) => elsewhere.has(ip) });
  // Datagrams are only recorded: nothing leaves.
  const sent: string[][] = [];
  const send = async (targets: readonly Target[]) => {
    sent.push(targets.map((t) => t.ip));
    return new Map(targets.map((t) => [t.ip, 'sent' as SendResult]));
  };
  const target = (ip: string): Target => ({ ip, clientId: 1, room: 1, center: 1, packet: Buffer.alloc(102), to: ['127.255.255.255'] });
  try {
    const { run } = await runs.start([target('127.0.2.1'), target('127.0.2.2')], { type: 'broadcast', send });
    elsewhere.add('127.0.2.1');
    await clock.advance(60_000);
    assert.deepEqual(sent, [['127.0.2.1', '127.0.2.2'], ['127.0.2.2']], 'only the silent one woken again');
    assert.equal(runs.get(run)?.clients.get('127.0.2.1')?.state, 'awake');
  } finally {
    runs.stop();
  }
});

test.run();
