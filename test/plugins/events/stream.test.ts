// Engine-independent: runs once, on SQLite.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually, FakeAgent, within } from '../../support/fake-agent';
import { EventStreamClient, type StreamedEvent } from '../../support/event-stream';
import { addCenter, addClient, addRoom, macFor } from '../../support/fixtures';
import { startLab } from '../../support/lab';
import { send, startServer, TOKEN, type TestServer } from '../../support/server';
import { UdpReceiver } from '../../support/udp-receiver';

// Without the audit and jobs plugins: their entries and jobs are events too (the audit's a
// flush interval after each request), and the counts here are of the fleet's own events
// (test/plugins/audit and test/plugins/jobs have those).
const defaultPlugins = (
  JSON.parse(readFileSync(path.join(__dirname, '../../../../config/default.json'), 'utf8')) as { plugins: string[] }
).plugins.filter((name) => name !== 'audit' && name !== 'jobs');

/** A center with one room of three clients at 127.0.0.11-13; the WoL port is the test's receiver. */
async function lab(config: Record<string, unknown> = {}) {
  // Unicast wakes go to the client's own address: the receiver listens there.
  const udp = await UdpReceiver.bind('127.0.0.12');
  const x = await startLab({
    ips: ['127.0.0.11', '127.0.0.12', '127.0.0.13'],
    server: { config: { plugins: defaultPlugins, wol: { port: udp.port }, ...config } },
    async populate(s, ips) {
      const center = await addCenter(s, 'Events');
      const room = await addRoom(s, center, 'Lab', '255.255.255.0');
      for (const [i, ip] of ips.entries()) await addClient(s, room, ip, macFor(0x100 + i));
      return { center, room };
    },
  });
  // The agents are connected by each test itself, to see every event of their connection.
  return { ...x, udp, port: x.link.port() };
}

async function idle(s: TestServer, ip: string): Promise<void> {
  await eventually(async () => {
    const r = await s.get('/clients');
    return r.body.clients.some((c: { addr: string; state: string }) => c.addr === ip && c.state === 'OPG');
  }, `${ip} idle`);
}

test('a scripted fleet: connect, refresh, command, wake, inventory write, disconnect, in order, every id one more', async () => {
  const x = await lab();
  const stream = await EventStreamClient.open(x.s.port);
  try {
    assert.is(stream.status, 200);
    assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
    const agent = await FakeAgent.connect({ port: x.port, localAddress: x.ips[0] });
    await idle(x.s, x.ips[0]!);
    await stream.waitFor((e) => e.type === 'client.state' && e.data.new === 'OPG', 'the agent shown OPG');

    assert.is((await x.s.post('/refresh', { clients: [x.ips[0]] })).status, 200);
    await eventually(() => stream.events.filter((e) => e.type === 'command.answered').length === 2, 'the second refresh answered');
    assert.is((await x.s.post('/wol', { clients: [x.ips[1]], type: 'unicast' })).status, 200);
    await x.udp.waitFor(1);
    const center = await x.s.post('/center/add', { name: 'Second' });
    await agent.close();
    await stream.waitFor((e) => e.type === 'agent.disconnected', 'the disconnect');
    await stream.waitFor((e) => e.type === 'client.state' && e.data.new === 'OFF', 'the client shown off');

    const ids = stream.events.map((e) => e.id);
    assert.equal(
      ids,
      ids.map((_, i) => ids[0]! + i),
      'ids increase by one',
    );
    for (const e of stream.events) assert.ok(!Number.isNaN(Date.parse(e.time)), `time of ${e.type}`);
    const about = (ip: string) => (e: StreamedEvent) => e.data.client === ip || e.data.clients?.includes(ip);
    assert.equal(
      stream.events
        .filter((e) => e.type !== 'inventory.created')
        .map((e) => [e.type, e.data.client ?? e.data.clients, e.data.command ?? e.data.new ?? null]),
      [
        ['agent.connected', x.ips[0], null],
        ['command.sent', x.ips[0], 'refresh'],
        ['client.state', x.ips[0], 'BSY'],
        ['command.answered', x.ips[0], 'refresh'],
        ['client.state', x.ips[0], 'OPG'],
        ['command.sent', x.ips[0], 'refresh'],
        ['client.state', x.ips[0], 'BSY'],
        ['command.answered', x.ips[0], 'refresh'],
        ['client.state', x.ips[0], 'OPG'],
        ['wol.run.started', [x.ips[1]], null],
        ['wol.sent', [x.ips[1]], null],
        ['agent.disconnected', x.ips[0], null],
        ['client.state', x.ips[0], 'OFF'],
      ],
    );
    const answered = stream.events.find((e) => e.type === 'command.answered')!;
    assert.equal([answered.data.outcome, answered.data.status, answered.data.result], ['answered', 200, 'success']);
    assert.type(answered.data.duration_ms, 'number');
    assert.equal(stream.events.find((e) => e.type === 'client.state')!.data, { client: x.ips[0], old: 'OFF', new: 'BSY' });
    assert.equal(stream.events.find((e) => e.type === 'wol.sent')!.data, { run: 1, clients: [x.ips[1]], type: 'unicast', packets: 1 });
    assert.equal(
      stream.events.filter((e) => e.type === 'inventory.created').map((e) => e.data),
      [{ kind: 'center', id: center.body.id }],
    );
    assert.ok(stream.events.filter(about(x.ips[2]!)).length === 0, 'nothing about a client nobody touched');
  } finally {
    stream.close();
    await x.s.close();
    await x.udp.close();
  }
});

test('inventory writes: created, updated and deleted with their kind and id; a refused write announces nothing', async () => {
  const x = await lab();
  const stream = await EventStreamClient.open(x.s.port, 'types=inventory.*');
  try {
    const room = await x.s.post('/room/add', { center: x.center, name: 'Second lab', netmask: '255.255.255.0' });
    await x.s.post('/room/update', { id: room.body.id, name: 'Renamed lab' });
    assert.is((await x.s.post('/room/add', { center: x.center, name: 'Renamed lab', netmask: '255.255.255.0' })).status, 400);
    await x.s.post('/client/delete', { clients: [x.ips[2]] });
    await x.s.post('/room/delete', { id: room.body.id });
    await stream.waitFor((e) => e.type === 'inventory.deleted' && e.data.kind === 'room', 'the room deleted');
    assert.equal(
      stream.events.map((e) => [e.type, e.data]),
      [
        ['inventory.created', { kind: 'room', id: room.body.id }],
        ['inventory.updated', { kind: 'room', id: room.body.id }],
        ['inventory.deleted', { kind: 'client', clients: [x.ips[2]] }],
        ['inventory.deleted', { kind: 'room', id: room.body.id }],
      ],
    );
  } finally {
    stream.close();
    await x.s.close();
    await x.udp.close();
  }
});

test('Last-Event-ID resumes with exactly what was missed; an id no longer kept gets a reset event', async () => {
  const x = await lab({ events: { buffer_size: 5 } });
  try {
    const first = await EventStreamClient.open(x.s.port);
    await x.s.post('/center/add', { name: 'One' });
    const seen = await first.waitFor((e) => e.type === 'inventory.created', 'the first write');
    first.close();
    await x.s.post('/center/add', { name: 'Two' });
    await x.s.post('/center/add', { name: 'Three' });

    const resumed = await EventStreamClient.open(x.s.port, '', { Authorization: TOKEN, 'Last-Event-ID': String(seen.id) });
    await resumed.waitFor((e) => e.id === seen.id + 2, 'the two missed events');
    assert.equal(
      resumed.events.map((e) => e.id),
      [seen.id + 1, seen.id + 2],
    );
    resumed.close();

    for (let i = 0; i < 6; i++) await x.s.post('/center/add', { name: `More ${i}` });
    const late = await EventStreamClient.open(x.s.port, '', { Authorization: TOKEN, 'Last-Event-ID': String(seen.id) });
    const reset = await late.waitFor((e) => e.type === 'reset', 'a reset');
    assert.is(late.events.length, 1, 'only the reset: the missed events are gone');
    assert.is(reset.id, seen.id + 8, 'the reset carries the newest id, to resume from after re-reading');
    assert.is(reset.data.last_event_id, seen.id);
    late.close();

    const bad = await EventStreamClient.open(x.s.port, '', { Authorization: TOKEN, 'Last-Event-ID': 'abc' });
    assert.is(bad.status, 400);
    assert.is(bad.json.field, 'last_event_id');
  } finally {
    await x.s.close();
    await x.udp.close();
  }
});

test('events reach readers in batches; a reader that joins mid-batch gets only what came after it, once', async () => {
  const x = await lab({ events: { flush_ms: 1000 } });
  try {
    const early = await EventStreamClient.open(x.s.port);
    await x.s.post('/center/add', { name: 'Before' });
    const late = await EventStreamClient.open(x.s.port);
    const filtered = await EventStreamClient.open(x.s.port, 'types=inventory.created');
    await x.s.post('/center/add', { name: 'After' });
    await early.waitFor((e) => e.data.kind === 'center' && early.events.length === 2, 'both writes');
    await late.waitFor((e) => e.data.kind === 'center', 'the second write');
    await filtered.waitFor((e) => e.data.kind === 'center', 'the second write, filtered');
    const after = early.events[1]!.id;
    assert.equal(
      early.events.map((e) => e.id),
      [after - 1, after],
    );
    assert.equal(
      late.events.map((e) => e.id),
      [after],
      'only what came after it joined',
    );
    assert.equal(
      filtered.events.map((e) => e.id),
      [after],
    );
    for (const stream of [early, late, filtered]) stream.close();
  } finally {
    await x.s.close();
    await x.udp.close();
  }
});

test('filters: types (exact and prefix), clients, room; bad filters are a 400 naming the parameter', async () => {
  const x = await lab();
  const states = await EventStreamClient.open(x.s.port, 'types=client.state');
  const commands = await EventStreamClient.open(x.s.port, 'types=command.*&clients=127.0.0.12');
  const room = await EventStreamClient.open(x.s.port, `room=${x.room}&types=agent.*`);
  try {
    const a = await FakeAgent.connect({ port: x.port, localAddress: x.ips[0] });
    const b = await FakeAgent.connect({ port: x.port, localAddress: x.ips[1] });
    await idle(x.s, x.ips[0]!);
    await idle(x.s, x.ips[1]!);
    await x.s.post('/center/add', { name: 'Noise' });
    await commands.waitFor((e) => e.type === 'command.answered', 'b refreshed');
    await states.waitFor((e) => e.data.client === x.ips[1] && e.data.new === 'OPG', 'b idle');
    await room.waitFor((e) => e.data.client === x.ips[1], 'b connected');
    assert.ok(states.events.length >= 4 && states.events.every((e) => e.type === 'client.state'));
    assert.equal(commands.types(), ['command.sent', 'command.answered']);
    assert.ok(commands.events.every((e) => e.data.client === x.ips[1]));
    assert.equal(room.types(), ['agent.connected', 'agent.connected']);
    await a.close();
    await b.close();

    for (const [query, field] of [
      ['clients=127.0.0.300', 'clients'],
      ['types=Bad%20Type', 'types'],
      ['room=abc', 'room'],
      ['room=99999', 'room'],
    ]) {
      const r = await EventStreamClient.open(x.s.port, query!);
      assert.is(r.status, 400, query);
      assert.is(r.json.field, field, query);
    }
  } finally {
    for (const stream of [states, commands, room]) stream.close();
    await x.s.close();
    await x.udp.close();
  }
});

test('a ticket opens one stream without the key, once; without key or ticket it is 401', async () => {
  const x = await lab();
  try {
    const issued = await x.s.post('/events/ticket');
    assert.is(issued.status, 200);
    assert.type(issued.body.ticket, 'string');
    assert.ok(issued.body.ticket.length >= 32, 'hard to guess');
    assert.is((await send(x.s.port, 'POST', '/events/ticket')).status, 401, 'a ticket needs the key');

    const withTicket = await EventStreamClient.open(x.s.port, `ticket=${encodeURIComponent(issued.body.ticket)}`, {});
    assert.is(withTicket.status, 200);
    await x.s.post('/center/add', { name: 'Seen' });
    await withTicket.waitFor((e) => e.type === 'inventory.created', 'an event through the ticket stream');
    withTicket.close();

    const again = await EventStreamClient.open(x.s.port, `ticket=${encodeURIComponent(issued.body.ticket)}`, {});
    assert.is(again.status, 401, 'single use');
    assert.is((await EventStreamClient.open(x.s.port, 'ticket=made-up', {})).status, 401);
    assert.is((await EventStreamClient.open(x.s.port, '', {})).status, 401);
    assert.is((await send(x.s.port, 'GET', `/clients?ticket=${encodeURIComponent(issued.body.ticket)}`)).status, 401, 'only for /events');
  } finally {
    await x.s.close();
    await x.udp.close();
  }
});

/**
 * A third-party plugin, loaded from a file as a site's would be: POST /burst announces
 * `count` events of about 8 KiB each on the bus, which the stream forwards like any other.
 */
function burstPlugin(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-burst-'));
  const file = path.join(dir, 'burst.js');
  writeFileSync(
    file,
    `exports.plugin = {
      name: 'burst',
      register(ctx) {
        ctx.router.post('/burst', { permission: 'admin', bodyPolicy: 'required', body: { type: 'object' } }, async ({ body }) => {
          for (let i = 0; i < body.count; i++) void ctx.events.emit('burst.sent', { i, pad: 'x'.repeat(8192) });
          return {};
        });
      },
    };`,
  );
  return file;
}

test("a stalled subscriber is dropped while the others keep receiving everything (a third-party plugin's events)", async () => {
  const plugin = burstPlugin();
  // The reader that reads is this process too: on a loaded machine it may not read for half
  // a second while it parses, and was then taken for stalled (CI, once). 2 s tells the two apart.
  const x = await lab({ plugins: [...defaultPlugins, plugin], events: { subscriber_buffer_bytes: 1_048_576, subscriber_stall_s: 2 } });
  const stalled = await EventStreamClient.open(x.s.port);
  const reader = await EventStreamClient.open(x.s.port, 'types=burst.sent');
  try {
    stalled.pause();
    // 2,000 events of 8 KiB: far more than the stalled reader's socket buffers hold.
    const count = 2000;
    for (let i = 0; i < 4; i++) assert.is((await x.s.post('/burst', { count: count / 4 })).status, 200);
    await eventually(() => reader.events.length === count, `${count} events`, 20_000).catch((error: Error) => {
      const hub = x.s.app.container.resolve(EventHub);
      throw new Error(`${error.message}: the reader got ${reader.events.length}, ended ${reader.ended}; ${JSON.stringify(hub.figures)}`);
    });
    assert.equal(
      reader.events.map((e) => e.data.i),
      Array.from({ length: count }, (_, i) => i % (count / 4)),
    );
    await eventually(() => dropped(x.s), 'the stalled subscriber dropped', 10_000);
    stalled.resume();
    await eventually(() => stalled.ended, 'its connection closed');
    assert.ok(stalled.events.filter((e) => e.type === 'burst.sent').length < count, 'it did not get the rest');
  } finally {
    stalled.close();
    reader.close();
    await x.s.close();
    await x.udp.close();
    rmSync(path.dirname(plugin), { recursive: true, force: true });
  }
});

function dropped(s: TestServer): boolean {
  const hub = s.app.container.resolve(EventHub);
  return hub.figures.stalled === 1 && hub.subscriberCount === 1;
}

import { EventHub } from '../../../plugins/events';

test('events.max_subscribers: one more stream is a 503; a stop ends open streams at once', async () => {
  const x = await lab({ events: { max_subscribers: 2 }, rest: { shutdown_grace_s: 600 } });
  const a = await EventStreamClient.open(x.s.port);
  const b = await EventStreamClient.open(x.s.port);
  try {
    const c = await EventStreamClient.open(x.s.port);
    assert.is(c.status, 503);
    assert.match(c.json.message, /max_subscribers/);
    // With a 600 s grace, a stop that waited for the streams would not end within the test.
    await within(x.s.close(), 10_000, 'the service stopping with two streams open');
    await eventually(() => a.ended && b.ended, 'both streams ended');
  } finally {
    a.close();
    b.close();
    await x.udp.close();
  }
});

test('a reader that leaves its stream is dropped at once, not at the next heartbeat', async () => {
  const s = await startServer({ config: { events: { heartbeat_s: 3600 } } });
  const subscribers = async () => /^ogserve_event_subscribers (\d+)$/m.exec((await s.get('/metrics')).text)?.[1];
  const staying = await EventStreamClient.open(s.port);
  const leaving = await EventStreamClient.open(s.port);
  try {
    await eventually(async () => (await subscribers()) === '2', 'two streams counted');
    leaving.close();
    await eventually(async () => (await subscribers()) === '1', 'the stream left is no longer counted');
    assert.ok(!staying.ended, 'the other stream stays open');
  } finally {
    staying.close();
    await s.close();
  }
});

test('webhooks: every event POSTed and signed; a receiver that fails is retried', async () => {
  const { createServer } = await import('node:http');
  const { createHmac } = await import('node:crypto');
  const received: { event: string; signature: string; body: string }[] = [];
  let failFirst = true;
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      if (failFirst) {
        failFirst = false;
        res.writeHead(500).end();
        return;
      }
      received.push({ event: String(req.headers['x-ogserve-event']), signature: String(req.headers['x-ogserve-signature']), body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  const secret = 'the-site-shared-webhook-secret';
  const x = await lab({ events: { webhooks: [{ url, secret, types: ['inventory.*'] }], webhook_retry_s: 0.05 } });
  try {
    const a = await x.s.post('/center/add', { name: 'Hooked' });
    await x.s.post('/center/update', { id: a.body.id, name: 'Hooked again' });
    // The lab's five writes (center, room, three clients), then these two.
    await eventually(() => received.length === 7, 'seven deliveries');
    assert.equal(
      received.map((r) => JSON.parse(r.body).id),
      [1, 2, 3, 4, 5, 6, 7],
      'the first event, refused with a 500, came again and the order held',
    );
    assert.equal(
      received.slice(5).map((r) => r.event),
      ['inventory.created', 'inventory.updated'],
    );
    for (const r of received) assert.is(r.signature, `sha256=${createHmac('sha256', secret).update(r.body).digest('hex')}`);
    assert.equal(JSON.parse(received[5]!.body).data, { kind: 'center', id: a.body.id });
  } finally {
    await x.s.close();
    await x.udp.close();
    await new Promise((resolve) => receiver.close(resolve));
  }
});

test('a bad webhook config stops the start naming the key', async () => {
  let error: Error | undefined;
  try {
    const s = await startServer({ config: { events: { webhooks: [{ url: 'ftp://x', secret: 'short' }] } } });
    await s.close();
  } catch (caught) {
    error = caught as Error;
  }
  assert.ok(error, 'refused');
  assert.match(error!.message, /events\.webhooks/);
});

test.run();
