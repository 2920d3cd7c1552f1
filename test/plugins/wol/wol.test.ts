import assert from 'node:assert/strict';
import { test } from 'uvu';
import { ManualClock } from '../../../testing';
import type { PluginEvents } from '../../../core/events';
import { Inventory } from '../../../plugins/inventory';
import { PendingWakes } from '../../../plugins/wol/pending';
import type { ClientDatagram } from '../../../plugins/wol/routing';
import { WakeSocket, type Datagram } from '../../../plugins/wol/sender';
import { Waker } from '../../../plugins/wol/waker';
import { eventually } from '../../support/fake-agent';
import { macFor } from '../../support/fixtures';
import { expectedPacket, noSkips, plainRuns, wolSite } from './helpers';

test('broadcast: one exact magic packet per client to the room directed broadcast (netmask 255.0.0.0)', async () => {
  const x = await wolSite({ count: 2 });
  try {
    const unicast = await x.receiver(x.ips[0]!);
    const r = await x.s.post('/wol', { clients: x.ips, type: 'broadcast' });
    assert.equal(r.status, 200, `status: ${r.text}`);
    assert.deepEqual(r.body, { run: 1, sent: x.ips, skipped: noSkips }, 'both woken, by wake run 1');
    const packets = await x.broadcast.flush();
    assert.equal(packets.length, 2, 'two packets to 127.255.255.255');
    assert.deepEqual(
      packets.map((p) => p.data).sort(Buffer.compare),
      [expectedPacket(macFor(1)), expectedPacket(macFor(2))].sort(Buffer.compare),
      'exact bytes: 6 x 0xFF then the MAC 16 times',
    );
    assert.equal((await unicast.flush()).length, 0, 'nothing to the client address itself');
  } finally {
    await x.close();
  }
});

test('unicast: one packet to each client address and none to the broadcast address', async () => {
  const x = await wolSite({ count: 2 });
  try {
    const first = await x.receiver(x.ips[0]!);
    const second = await x.receiver(x.ips[1]!);
    const r = await x.s.post('/wol', { clients: x.ips, type: 'unicast' });
    assert.equal(r.status, 200, `status: ${r.text}`);
    assert.deepEqual(r.body.sent, x.ips, 'both woken');
    assert.deepEqual(
      (await first.flush()).map((p) => p.data),
      [expectedPacket(macFor(1))],
      'first client got its own packet',
    );
    assert.deepEqual(
      (await second.flush()).map((p) => p.data),
      [expectedPacket(macFor(2))],
      'second client got its own packet',
    );
    assert.equal((await x.broadcast.flush()).length, 0, 'no broadcast in unicast mode');
  } finally {
    await x.close();
  }
});

test("directed broadcast comes from the room netmask, not the client's own netmask field", async () => {
  const x = await wolSite({ count: 1, netmask: '255.255.255.0', client: { netmask: '255.0.0.0' } });
  try {
    const subnet = await x.receiver('127.0.2.255');
    const r = await x.s.post('/wol', { clients: x.ips, type: 'broadcast' });
    assert.equal(r.status, 200, `status: ${r.text}`);
    assert.deepEqual(
      (await subnet.flush()).map((p) => p.data),
      [expectedPacket(macFor(1))],
      'sent to 127.0.2.255 (the /24 room)',
    );
    assert.equal((await x.broadcast.flush()).length, 0, 'not to the /8 broadcast the client record would give');
  } finally {
    await x.close();
  }
});

test('wol.interface adds the interface broadcast address, as the reference', async () => {
  const x = await wolSite({ count: 1, netmask: '255.255.255.0', wol: { interface: 'lo' } });
  try {
    const subnet = await x.receiver('127.0.2.255');
    const r = await x.s.post('/wol', { clients: x.ips, type: 'broadcast' });
    assert.equal(r.status, 200, `status: ${r.text}`);
    assert.deepEqual(
      (await x.broadcast.flush()).map((p) => p.data),
      [expectedPacket(macFor(1))],
      "lo's broadcast 127.255.255.255",
    );
    assert.deepEqual(
      (await subnet.flush()).map((p) => p.data),
      [expectedPacket(macFor(1))],
      'and the directed broadcast',
    );
  } finally {
    await x.close();
  }
});

test('malformed, unknown and repeated addresses are skipped with their reason; the request still succeeds', async () => {
  const x = await wolSite({ count: 2 });
  try {
    const clients = ['bogus', x.ips[0], '999.1.1.1', '127.0.9.9', x.ips[0], '', '127.0.2.01', ' 127.0.2.2', x.ips[1]];
    const r = await x.s.post('/wol', { clients, type: 'broadcast' });
    assert.equal(r.status, 200, `status: ${r.text}`);
    assert.deepEqual(
      r.body,
      {
        run: 1,
        sent: x.ips,
        skipped: { ...noSkips, malformed: ['bogus', '999.1.1.1', '', '127.0.2.01', ' 127.0.2.2'], not_found: ['127.0.9.9'] },
      },
      'each address accounted for once, in request order',
    );
    assert.equal((await x.broadcast.flush()).length, 2, 'one packet per woken client, none for the skipped ones');
    assert.deepEqual(
      (await x.clients()).map((c) => c.addr),
      x.ips,
      'WOL_SENT only for the woken clients',
    );
  } finally {
    await x.close();
  }
});

test('nothing known: 200 with everything skipped and no packet', async () => {
  const x = await wolSite({ count: 1 });
  try {
    const r = await x.s.post('/wol', { clients: ['127.0.9.1', 'x'], type: 'unicast' });
    assert.equal(r.status, 200, `status: ${r.text}`);
    assert.deepEqual(
      r.body,
      { run: null, sent: [], skipped: { ...noSkips, malformed: ['x'], not_found: ['127.0.9.1'] } },
      'report, no run',
    );
    const empty = await x.s.post('/wol', { clients: [], type: 'broadcast' });
    assert.deepEqual(empty.body, { run: null, sent: [], skipped: noSkips }, 'an empty list is fine');
    assert.equal((await x.broadcast.flush()).length, 0, 'no packet');
    assert.deepEqual(await x.clients(), [], 'no WOL_SENT entry');
  } finally {
    await x.close();
  }
});

test('a woken client is shown WOL_SENT with last_cmd unknown and no speed, oldest first', async () => {
  const x = await wolSite({ count: 2 });
  try {
    await x.s.post('/wol', { clients: [x.ips[1]], type: 'broadcast' });
    await x.s.post('/wol', { clients: [x.ips[0]], type: 'unicast' });
    assert.deepEqual(
      await x.clients(),
      [
        { addr: x.ips[1], state: 'WOL_SENT', last_cmd: { result: 'unknown' } },
        { addr: x.ips[0], state: 'WOL_SENT', last_cmd: { result: 'unknown' } },
      ],
      'GET /clients entries',
    );
  } finally {
    await x.close();
  }
});

test('a WOL_SENT entry is released after wol.pending_timeout_s', async () => {
  const x = await wolSite({ count: 1, wol: { pending_timeout_s: 0.3 } });
  try {
    await x.s.post('/wol', { clients: x.ips, type: 'broadcast' });
    assert.equal((await x.clients()).length, 1, 'shown at first');
    await eventually(async () => (await x.clients()).length === 0, 'WOL_SENT released');
  } finally {
    await x.close();
  }
});

test('with the default configuration a woken client stays WOL_SENT until 60 s have passed, then is released', async () => {
  const clock = new ManualClock(Date.now());
  const x = await wolSite({ count: 1, clock }); // wol.pending_timeout_s left to config/default.json and the schema
  try {
    const start = clock.now();
    assert.deepEqual((await x.s.post('/wol', { clients: x.ips, type: 'broadcast' })).body.sent, x.ips, 'woken');
    assert.deepEqual(
      clock.pendingTimers(),
      [start + 60_000, start + 300_000],
      'its expiry is armed 60 s ahead on the injected clock, and its run checks its agent at 300 s (wol.verify_s)',
    );
    await clock.advance(59_999);
    assert.deepEqual(
      (await x.clients()).map((c) => c.state),
      ['WOL_SENT'],
      'still WOL_SENT 1 ms before 60 s',
    );
    await clock.advance(1);
    assert.deepEqual(await x.clients(), [], 'released at 60 s');
  } finally {
    await x.close();
  }
});

test('waking a WOL_SENT client again sends the packet again and keeps one entry', async () => {
  const x = await wolSite({ count: 1 });
  try {
    await x.s.post('/wol', { clients: x.ips, type: 'broadcast' });
    const again = await x.s.post('/wol', { clients: x.ips, type: 'broadcast' });
    assert.deepEqual(again.body.sent, x.ips, 'reported as woken again');
    assert.equal((await x.broadcast.flush()).length, 2, 'a second packet (the first may have been lost)');
    assert.equal((await x.clients()).length, 1, 'still one entry');
  } finally {
    await x.close();
  }
});

test('an agent connecting replaces its WOL_SENT entry, which does not come back when it leaves', async () => {
  const x = await wolSite({ count: 2 });
  try {
    await x.s.post('/wol', { clients: x.ips, type: 'broadcast' });
    const agent = await x.connect(x.ips[0]!);
    const entries = await x.clients();
    assert.deepEqual(
      entries.map((c) => [c.addr, c.state]),
      [
        [x.ips[1], 'WOL_SENT'],
        [x.ips[0], 'OPG'],
      ],
      'the connected client shows its real state',
    );
    agent.destroy();
    await eventually(() => !x.link.isConnected(x.ips[0]!), 'agent gone');
    assert.deepEqual(
      (await x.clients()).map((c) => c.addr),
      [x.ips[1]],
      'no WOL_SENT entry reappears for it',
    );
  } finally {
    await x.close();
  }
});

test('a connected client gets no packet and no WOL_SENT entry', async () => {
  const x = await wolSite({ count: 1 });
  try {
    const agent = await x.connect(x.ips[0]!);
    const unicast = await x.receiver(x.ips[0]!);
    for (const type of ['broadcast', 'unicast']) {
      const r = await x.s.post('/wol', { clients: x.ips, type });
      assert.deepEqual(r.body, { run: null, sent: [], skipped: { ...noSkips, connected: x.ips } }, `${type}: skipped as connected`);
    }
    assert.equal((await x.broadcast.flush()).length + (await unicast.flush()).length, 0, 'no packet');
    assert.deepEqual(
      (await x.clients()).map((c) => c.state),
      ['OPG'],
      'state unchanged',
    );
    agent.destroy();
    await eventually(async () => (await x.clients()).length === 0, 'gone without a WOL_SENT entry');
  } finally {
    await x.close();
  }
});

test('deleting a WOL_SENT client releases its entry', async () => {
  const x = await wolSite({ count: 2 });
  try {
    await x.s.post('/wol', { clients: x.ips, type: 'broadcast' });
    const r = await x.s.post('/client/delete', { clients: [x.ips[0]] });
    assert.equal(r.status, 200, `client/delete: ${r.text}`);
    assert.deepEqual(
      (await x.clients()).map((c) => c.addr),
      [x.ips[1]],
      'only the remaining client is listed',
    );
  } finally {
    await x.close();
  }
});

test('a stored MAC or room netmask that cannot address a packet is skipped as invalid_record', async () => {
  const x = await wolSite({ count: 2 });
  try {
    // Records imported from an older database, bypassing the REST validation.
    await x.s.app.database.query("update clients set mac = 'not-a-mac' where ip = ?", [x.ips[0]]);
    x.s.app.container.resolve(Inventory).tablesChanged();
    const unicast = await x.s.post('/wol', { clients: x.ips, type: 'unicast' });
    assert.deepEqual(unicast.body, { run: 1, sent: [x.ips[1]], skipped: { ...noSkips, invalid_record: [x.ips[0]] } }, 'bad MAC');
    await x.s.app.database.query("update rooms set netmask = '255.0.255.0'", []);
    x.s.app.container.resolve(Inventory).tablesChanged();
    const broadcast = await x.s.post('/wol', { clients: [x.ips[1]], type: 'broadcast' });
    assert.deepEqual(broadcast.body, { run: null, sent: [], skipped: { ...noSkips, invalid_record: [x.ips[1]] } }, 'bad room netmask');
    assert.equal((await x.broadcast.flush()).length, 0, 'nothing sent to a broadcast address');
  } finally {
    await x.close();
  }
});

test('records that would wake through 255.255.255.255 are skipped as invalid_record unless wol.limited_broadcast is on', async () => {
  const x = await wolSite({ count: 3 });
  // Datagrams are only recorded: even a broken guard sends nothing beyond loopback.
  const sent: Datagram[] = [];
  const recorder = {
    sendAll: async (datagrams: Datagram[]) => {
      sent.push(...datagrams);
      return datagrams.map(() => undefined);
    },
  } as unknown as WakeSocket;
  const pending = new PendingWakes({ pending_timeout_s: 60 });
  const waker = (limitedBroadcast: boolean) =>
    new Waker(
      x.s.app.container.resolve(Inventory),
      x.link,
      pending,
      { port: x.port, interface: '', limited_broadcast: limitedBroadcast },
      recorder,
      plainRuns(x.s.app.container.resolve(Inventory), x.link),
    );
  try {
    // Records imported from the reference, bypassing the REST validation.
    const db = x.s.app.database;
    await db.query("update clients set ip = '255.255.255.255' where ip = ?", [x.ips[0]]);
    await db.query("update clients set ip = '0.0.0.0' where ip = ?", [x.ips[1]]);
    x.s.app.container.resolve(Inventory).tablesChanged();
    for (const type of ['unicast', 'broadcast'] as const) {
      const report = await waker(false).wake(['255.255.255.255', '0.0.0.0'], type);
      assert.deepEqual(
        report,
        { run: null, sent: [], skipped: { ...noSkips, invalid_record: ['255.255.255.255', '0.0.0.0'] } },
        `${type}: client addresses no host can hold`,
      );
    }
    await db.query("update rooms set netmask = '0.0.0.0'", []);
    x.s.app.container.resolve(Inventory).tablesChanged();
    let report = await waker(false).wake([x.ips[2]!], 'broadcast');
    assert.deepEqual(report, { run: null, sent: [], skipped: { ...noSkips, invalid_record: [x.ips[2]] } }, 'room netmask 0.0.0.0');
    await db.query("update rooms set netmask = '255.255.255.0'", []);
    await db.query("update clients set ip = '255.255.255.7' where ip = ?", [x.ips[2]]);
    x.s.app.container.resolve(Inventory).tablesChanged();
    report = await waker(false).wake(['255.255.255.7'], 'broadcast');
    assert.deepEqual(
      report,
      { run: null, sent: [], skipped: { ...noSkips, invalid_record: ['255.255.255.7'] } },
      'a /24 whose directed broadcast is 255.255.255.255',
    );
    assert.equal(sent.length, 0, 'no packet handed to the socket');
    assert.deepEqual([...pending.ips()], [], 'no WOL_SENT entry');

    report = await waker(true).wake(['255.255.255.7'], 'broadcast');
    assert.deepEqual(report.sent, ['255.255.255.7'], 'woken when wol.limited_broadcast is on');
    assert.deepEqual(
      sent.map((d) => d.address),
      ['255.255.255.255'],
      'to the limited broadcast',
    );
  } finally {
    pending.clear();
    await x.close();
  }
});

test('clients whose packets the kernel refuses are reported as send_failed and get no WOL_SENT entry', async () => {
  const x = await wolSite({ count: 2 });
  const socket = await WakeSocket.open();
  await socket.close(); // every send on a closed socket fails
  const pending = new PendingWakes({ pending_timeout_s: 60 });
  try {
    const waker = new Waker(
      x.s.app.container.resolve(Inventory),
      x.link,
      pending,
      { port: x.port, interface: '', limited_broadcast: false },
      socket,
      plainRuns(x.s.app.container.resolve(Inventory), x.link),
    );
    const report = await waker.wake(x.ips, 'broadcast');
    assert.deepEqual(report, { run: 1, sent: [], skipped: { ...noSkips, send_failed: x.ips } }, 'reported as failed');
    assert.deepEqual([...pending.ips()], [], 'no WOL_SENT entry');
  } finally {
    pending.clear();
    await x.close();
  }
});

test('a client is woken when any of its packets left, and wol.sent counts every packet that left', async () => {
  const x = await wolSite({ count: 4 });
  // Datagrams are only recorded (none leaves); each client's [limited, directed] pair fails as told.
  const failing = new Set([
    '127.0.2.1 255.255.255.255',
    '127.0.2.1 127.255.255.255',
    '127.0.2.2 255.255.255.255',
    '127.0.2.3 127.255.255.255',
  ]);
  const sent: string[] = [];
  const recorder = {
    sendAll: async (datagrams: ClientDatagram[]) =>
      datagrams.map(({ client, address }) => {
        sent.push(`${client} ${address}`);
        return failing.has(`${client} ${address}`) ? new Error('refused') : undefined;
      }),
  };
  const announced: [string[], string, number][] = [];
  const pending = new PendingWakes({ pending_timeout_s: 60 });
  try {
    const waker = new Waker(
      x.s.app.container.resolve(Inventory),
      x.link,
      pending,
      { port: x.port, interface: '', limited_broadcast: true },
      recorder,
      plainRuns(x.s.app.container.resolve(Inventory), x.link),
      {
        emit: async (_name, sent) => {
          const { clients, type, packets } = sent as { clients: string[]; type: string; packets: number };
          announced.push([clients, type, packets]);
          return [];
        },
      } as Pick<PluginEvents, 'emit'>,
    );
    const report = await waker.wake(x.ips, 'broadcast');
    assert.equal(sent.length, 8, 'two datagrams per client');
    assert.deepEqual(
      report,
      { run: 1, sent: x.ips.slice(1), skipped: { ...noSkips, send_failed: [x.ips[0]] } },
      'only the client with no packet out failed',
    );
    assert.deepEqual(announced, [[x.ips.slice(1), 'broadcast', 4]], 'the 4 packets that left are counted');
    assert.deepEqual([...pending.ips()], x.ips.slice(1), 'the woken ones are WOL_SENT');
  } finally {
    pending.clear();
    await x.close();
  }
});

test('in one request each client is checked against its own room netmask', async () => {
  const x = await wolSite({ count: 3 });
  try {
    const other = (await x.s.post('/room/add', { center: x.center, name: 'Other', netmask: '255.255.255.0' })).body.id as number;
    // A record imported from an older database, bypassing the REST validation.
    await x.s.app.database.query("update rooms set netmask = '255.0.255.0' where id = ?", [other]);
    await x.s.app.database.query('update clients set room_id = ? where ip = ?', [other, x.ips[1]]);
    x.s.app.container.resolve(Inventory).tablesChanged();
    const r = await x.s.post('/wol', { clients: x.ips, type: 'broadcast' });
    assert.deepEqual(
      r.body,
      { run: 1, sent: [x.ips[0], x.ips[2]], skipped: { ...noSkips, invalid_record: [x.ips[1]] } },
      'only the client of the bad room',
    );
    assert.equal((await x.broadcast.waitFor(2)).length, 2, 'the other two were sent their packet');
    const again = await x.s.post('/wol', { clients: [x.ips[1], x.ips[0]], type: 'broadcast' });
    assert.deepEqual(
      again.body,
      { run: 2, sent: [x.ips[0]], skipped: { ...noSkips, invalid_record: [x.ips[1]] } },
      'whichever room comes first',
    );
  } finally {
    await x.close();
  }
});

test('bad requests: wrong or missing type, clients not a list of strings, no body', async () => {
  const x = await wolSite({ count: 1 });
  try {
    const cases: [unknown, string][] = [
      [{ clients: x.ips, type: 'multicast' }, 'type'],
      [{ clients: x.ips, type: 1 }, 'type'],
      [{ clients: x.ips, type: 'Broadcast' }, 'type'],
      [{ clients: x.ips }, 'type'],
      [{ type: 'broadcast' }, 'clients'],
      [{ clients: '127.0.2.1', type: 'broadcast' }, 'clients'],
      [{ clients: [1], type: 'broadcast' }, 'clients'],
    ];
    for (const [body, field] of cases) {
      const r = await x.s.post('/wol', body);
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
      assert.ok(String(r.body.field).startsWith(field), `${JSON.stringify(body)} names ${field}: ${r.text}`);
    }
    const none = await x.s.post('/wol');
    assert.equal(none.status, 400, `no body: ${none.text}`);
    const get = await x.s.get('/wol', { clients: x.ips, type: 'broadcast' });
    assert.equal(get.status, 405, 'GET is a wrong method');
    assert.equal((await x.broadcast.flush()).length, 0, 'no packet from a refused request');
    assert.deepEqual(await x.clients(), [], 'no WOL_SENT entry from a refused request');
  } finally {
    await x.close();
  }
});

test.run();
