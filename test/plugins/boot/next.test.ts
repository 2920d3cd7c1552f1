import 'reflect-metadata';
import assert from 'node:assert/strict';
import { container } from 'tsyringe';
import { test } from 'uvu';
import { ManualClock } from '../../../testing';
import { BootClock } from '../../../plugins/boot';
import { Inventory } from '../../../plugins/inventory';
import { eventually } from '../../support/fake-agent';
import { addCenter, addClient, addRoom, macFor } from '../../support/fixtures';
import { type Lab, startLab } from '../../support/lab';
import { makeTestDir, removeTestStore, send } from '../../support/server';
import { pcGet } from './support';

/** 2026-01-01T00:00:00Z: where the one-shots' clock starts. */
const start = Date.parse('2026-01-01T00:00:00Z');
/** Room A holds the first two, room B the third: a key limited to room A sees only its PCs. */
const ips = ['127.0.9.1', '127.0.9.2', '127.0.10.1'];

interface Site extends Lab {
  clock: ManualClock;
  roomA: number;
  /** The boot mode the inventory holds for `ip`. */
  mode(ip: string): Promise<string | undefined>;
  /** The boot.next.* events announced so far, in order. */
  heard: { name: string; client: string; reason?: string }[];
  pending(): Promise<{ client: string; mode: string; previous: string; revert: string; since: string; until: string }[]>;
}

/** A server whose one-shot clock is a ManualClock at `at`; on `dir` when given, populated already on a `restart`. */
async function site(options: { dir?: string; at?: number; restart?: boolean } = {}): Promise<Site> {
  const clock = new ManualClock(options.at ?? start);
  const services = container.createChildContainer();
  services.register(BootClock, { useValue: clock });
  let roomA = 0;
  const lab = await startLab({
    ips,
    server: { container: services, dir: options.dir },
    populate: options.restart
      ? false
      : async (s) => {
          const center = await addCenter(s);
          roomA = await addRoom(s, center, 'A', '255.0.0.0');
          const roomB = await addRoom(s, center, 'B', '255.0.0.0');
          for (const [i, ip] of ips.entries()) await addClient(s, i < 2 ? roomA : roomB, ip, macFor(i + 1));
          assert.equal((await s.post('/mode', { clients: ips, mode: 'pxe' })).status, 200);
          return { center, room: roomA };
        },
  });
  const inventory = lab.s.app.container.resolve(Inventory);
  const heard: Site['heard'] = [];
  lab.s.app.events.on('test', 'boot.next.set', ({ client }) => void heard.push({ name: 'set', client }));
  lab.s.app.events.on('test', 'boot.next.reverted', ({ client, reason }) => void heard.push({ name: 'reverted', client, reason }));
  return {
    ...lab,
    clock,
    heard,
    roomA,
    mode: async (ip) => (await inventory.clientByIp(ip))?.boot,
    pending: async () => {
      const r = await lab.s.get('/boot/next');
      assert.equal(r.status, 200, r.text);
      return r.body.pending;
    },
  };
}

test('revert agent: the PC boots the mode until its agent connects, then its previous mode is back', async () => {
  const x = await site();
  try {
    const r = await x.s.post('/boot/next', { clients: [ips[0], '127.0.99.1'], mode: 'ogLive', revert: 'agent', timeout_s: 600 });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.unknown, ['127.0.99.1'], 'an address no PC has is reported, as POST /mode does');
    assert.equal(await x.mode(ips[0]!), 'ogLive');
    assert.deepEqual(await x.pending(), [
      {
        client: ips[0],
        mode: 'ogLive',
        previous: 'pxe',
        revert: 'agent',
        since: new Date(start).toISOString(),
        until: new Date(start + 600_000).toISOString(),
      },
    ]);
    // A served script does not end an `agent` one-shot.
    assert.match((await pcGet(x.s.port, `/boot/ipxe?mac=${macFor(1)}`)).text, /ogvmlinuz/);
    await x.connect(ips[0]!);
    // A deadline, not a timing: the revert is a few writes, each waiting on the engine's fsync
    // (on MariaDB under CI's load, 5 s were once not enough).
    await eventually(async () => (await x.mode(ips[0]!)) === 'pxe', 'the previous mode back', 15_000);
    assert.deepEqual(await x.pending(), []);
    assert.deepEqual(x.heard, [
      { name: 'set', client: ips[0] },
      { name: 'reverted', client: ips[0], reason: 'agent' },
    ]);
    await eventually(async () => {
      const audit = await x.s.get('/audit');
      return audit.body.entries?.some((e: { method: string; path: string }) => e.method === 'POST' && e.path === '/boot/next');
    }, 'POST /boot/next in the audit log');
  } finally {
    await x.close();
  }
});

test('revert served: the first script is the one-shot mode, then the previous mode is back; a second one-shot keeps the first previous', async () => {
  const x = await site();
  try {
    assert.equal((await x.s.post('/boot/next', { clients: [ips[1]], mode: '19pxeADMIN', revert: 'served' })).status, 200);
    const r = await x.s.post('/boot/next', { clients: [ips[1]], mode: 'ogLive', revert: 'served' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.pending[0].previous, 'pxe', 'the mode before any one-shot');
    assert.equal(r.body.pending[0].until, new Date(start + 3600_000).toISOString(), 'boot.next_timeout_s by default');
    assert.match((await pcGet(x.s.port, `/boot/ipxe?mac=${macFor(2)}`)).text, /ogvmlinuz/);
    await eventually(async () => (await x.mode(ips[1]!)) === 'pxe', 'the previous mode back', 15_000);
    assert.deepEqual(await x.pending(), []);
    assert.deepEqual(x.heard.at(-1), { name: 'reverted', client: ips[1], reason: 'served' });
  } finally {
    await x.close();
  }
});

test('timeout: the previous mode is back when the clock reaches it, not before', async () => {
  const x = await site();
  try {
    assert.equal((await x.s.post('/boot/next', { clients: [ips[0]], mode: 'ogLive', revert: 'agent', timeout_s: 60 })).status, 200);
    await x.clock.advance(59_000);
    assert.equal(await x.mode(ips[0]!), 'ogLive');
    await x.clock.advance(1_000);
    assert.equal(await x.mode(ips[0]!), 'pxe');
    assert.deepEqual(await x.pending(), []);
    assert.deepEqual(x.heard.at(-1), { name: 'reverted', client: ips[0], reason: 'timeout' });
  } finally {
    await x.close();
  }
});

test('a restart keeps the pending one-shots: an overdue one reverts at start, another at its time, a third at its script', async () => {
  const dir = makeTestDir();
  try {
    const first = await site({ dir });
    try {
      assert.equal((await first.s.post('/boot/next', { clients: [ips[0]], mode: 'ogLive', revert: 'agent', timeout_s: 10 })).status, 200);
      assert.equal((await first.s.post('/boot/next', { clients: [ips[1]], mode: 'ogLive', revert: 'served', timeout_s: 60 })).status, 200);
      assert.equal((await first.s.post('/boot/next', { clients: [ips[2]], mode: 'ogLive', revert: 'served', timeout_s: 600 })).status, 200);
    } finally {
      await first.close();
    }
    const x = await site({ dir, restart: true, at: start + 20_000 });
    try {
      await eventually(async () => (await x.mode(ips[0]!)) === 'pxe', 'the overdue one-shot reverted at start');
      assert.deepEqual(
        (await x.pending()).map((p) => [p.client, p.revert]),
        [
          [ips[1], 'served'],
          [ips[2], 'served'],
        ],
      );
      // The new process knows from the rows which PCs have one: its first script still ends it.
      assert.match((await pcGet(x.s.port, `/boot/ipxe?mac=${macFor(3)}`)).text, /ogvmlinuz/);
      await eventually(async () => (await x.mode(ips[2]!)) === 'pxe', 'the one-shot ended by its script after the restart', 15_000);
      await eventually(() => x.clock.pendingTimers().includes(start + 60_000), 'its timer armed again');
      await x.clock.advanceTo(start + 60_000);
      assert.equal(await x.mode(ips[1]!), 'pxe');
      assert.deepEqual(await x.pending(), []);
    } finally {
      await x.close();
    }
  } finally {
    await removeTestStore(dir);
  }
});

test('a removed PC takes its one-shot with it', async () => {
  const x = await site();
  try {
    assert.equal((await x.s.post('/boot/next', { clients: [ips[0], ips[1]], mode: 'ogLive', revert: 'agent' })).status, 200);
    const removed = await x.s.post('/client/delete', { clients: [ips[0]] });
    assert.equal(removed.status, 200, removed.text);
    await eventually(async () => (await x.pending()).length === 1, 'only the other PC pending');
    assert.deepEqual(x.clock.pendingTimers(), [start + 3600_000], 'its timer cancelled');
  } finally {
    await x.close();
  }
});

test('bad input: unknown mode, revert and timeout are 400s naming their field', async () => {
  const x = await site();
  try {
    const bad: [Record<string, unknown>, string][] = [
      [{ clients: [ips[0]], mode: 'nosuchmode', revert: 'agent' }, 'mode'],
      [{ clients: [ips[0]], mode: 'ogLive', revert: 'never' }, 'revert'],
      [{ clients: [ips[0]], mode: 'ogLive', revert: 'agent', timeout_s: 0 }, 'timeout_s'],
      [{ clients: [ips[0]], mode: 'ogLive', revert: 'agent', timeout_s: 'soon' }, 'timeout_s'],
    ];
    for (const [body, field] of bad) {
      const r = await x.s.post('/boot/next', body);
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
      assert.equal(r.body.field, field, `${JSON.stringify(body)}: ${r.text}`);
    }
    assert.deepEqual(await x.pending(), [], 'nothing set');
    assert.equal(await x.mode(ips[0]!), 'pxe');
  } finally {
    await x.close();
  }
});

test('a key limited to room A sets and sees only its PCs', async () => {
  const x = await site();
  try {
    const made = await x.s.post('/tokens', { name: 'a', role: 'operator', rooms: [x.roomA] });
    assert.equal(made.status, 200, made.text);
    const asA = (method: string, body?: unknown) => send(x.s.port, method, '/boot/next', body, { Authorization: made.body.secret });
    assert.equal((await asA('POST', { clients: [ips[2]], mode: 'ogLive', revert: 'agent' })).status, 403, 'a PC of room B');
    assert.equal((await asA('POST', { clients: [ips[0]], mode: 'ogLive', revert: 'agent' })).status, 200);
    assert.equal((await x.s.post('/boot/next', { clients: [ips[2]], mode: 'ogLive', revert: 'agent' })).status, 200);
    assert.deepEqual((await x.pending()).map((p) => p.client).sort(), [ips[2], ips[0]], 'the full key sees both');
    const seen = await asA('GET');
    assert.equal(seen.status, 200, seen.text);
    assert.deepEqual(
      seen.body.pending.map((p: { client: string }) => p.client),
      [ips[0]],
      'room A only',
    );
  } finally {
    await x.close();
  }
});

test.run();
