// Engine-independent: runs once, on SQLite.
import { Inventory } from '../../../plugins/inventory';
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { execute } from '../../../core/database';
import { FakeAgent, answerBytes, defaultConfiguration, eventually, within } from '../../support/fake-agent';
import { addRoom } from '../../support/fixtures';
import { site, type Site } from './helpers';

/**
 * Hostile agents: each misbehaviour is contained to its own connection, and a well-behaved
 * agent on the same server keeps working while it happens.
 */

/** The bystander still answers a command and has its answer stored. */
async function stillWorks(x: Site, ip: string, agent: FakeAgent): Promise<void> {
  assert.ok(agent.isConnected, `${ip}: the well-behaved agent is still connected`);
  const r = await x.s.post('/hardware', { clients: [ip] });
  assert.equal(r.body?.clients?.[0]?.outcome, 'sent', `${ip}: a command is still sent: ${r.text}`);
  // A bound on liveness, not a timing: after 1,000 agents reconnecting in a loop, a machine
  // running other passes beside this one may take more than the default 5 s.
  await eventually(
    async () => (await x.s.get('/hardware', { client: [ip] })).body?.hardware?.length === 3,
    `${ip}: hardware answer stored`,
    30_000,
  );
}

async function partitionCount(x: Site, ip: string): Promise<number> {
  const r = await x.s.get('/client/setup', { client: [ip] });
  assert.equal(r.status, 200, `GET /client/setup ${ip}: ${r.text}`);
  return (r.body.partitions as unknown[]).length;
}

test('a refresh answered with {} fails that command, keeps the stored disks and crashes nothing', async () => {
  const x = await site(2);
  try {
    const [ip, bystanderIp] = x.ips as [string, string];
    const bystander = await x.connect(bystanderIp);
    const agent = await x.connect(ip);
    const before = await partitionCount(x, ip);
    assert.ok(before > 0, 'the first refresh stored partitions');

    agent.on('refresh', { body: {} });
    await x.s.post('/refresh', { clients: [ip] });
    await eventually(async () => (await x.entry(ip))?.last_cmd.result === 'failure', '{} makes the refresh fail');
    assert.ok(
      x.s.logs.some((l) => l.ip === ip && /neither 'status' nor 'disk_setup'/.test(l.msg)),
      'the reason is logged',
    );
    assert.equal(await partitionCount(x, ip), before, 'the known partitions are not erased');
    assert.ok(agent.isConnected, 'the agent is kept: its next answer may be fine');
    await stillWorks(x, bystanderIp, bystander);

    await x.s.post('/refresh', { clients: [ip] });
    await eventually(async () => (await x.entry(ip))?.last_cmd.result === 'success', 'a good answer after it is stored');
  } finally {
    await x.close();
  }
});

test('answers with the wrong JSON types fail their command on that connection only', async () => {
  const x = await site(2, { peer_log_interval_s: 0.2 });
  try {
    const [ip, bystanderIp] = x.ips as [string, string];
    const bystander = await x.connect(bystanderIp);
    const agent = await x.connect(ip);
    const before = await partitionCount(x, ip);
    const partition = defaultConfiguration.partition_setup[0]!;
    const wrong: [string, unknown][] = [
      ['answer is an array', [1, 2]],
      ['answer is a number', 42],
      ['answer is a string', 'x'],
      ['answer is null', null],
      ['disk_setup is a string', { disk_setup: 'x' }],
      ['partition_setup holds numbers', { partition_setup: [1, 2] }],
      ['size is an object', { partition_setup: [{ ...partition, size: {} }] }],
      ['disk is an array', { partition_setup: [{ ...partition, disk: [1] }] }],
      ['code is a boolean', { partition_setup: [{ ...partition, code: true }] }],
      ['used_size is an object', { partition_setup: [{ ...partition, used_size: { a: 1 } }] }],
      ['os is a number', { partition_setup: [{ ...partition, os: 7 }] }],
      ['status is a number', { status: 5 }],
      ['serial_number is an array', { ...defaultConfiguration, serial_number: ['a'] }],
    ];
    for (const [what, body] of wrong) {
      agent.on('refresh', { body });
      // Success first, so each failure below is this answer's.
      await x.s.post('/refresh', { clients: [ip] });
      await eventually(async () => (await x.entry(ip))?.last_cmd.result === 'failure', `${what}: the refresh fails`);
      assert.ok(agent.isConnected, `${what}: the agent stays connected`);
      assert.equal(await partitionCount(x, ip), before, `${what}: the stored partitions are unchanged`);
      await x.s.post('/refresh', { clients: [ip] });
      await eventually(async () => (await x.entry(ip))?.last_cmd.result === 'success', `${what}: the next good refresh succeeds`);
    }
    // Probe answers and events of the wrong types are ignored, not fatal.
    agent.on('probe', { body: { status: [], speed: 'fast' } });
    await x.s.post('/clients', { clients: [ip] });
    await eventually(
      () => x.s.logs.some((l) => l.ip === ip && /unusable probe answer/.test(l.msg)),
      'a probe answer with wrong types is ignored',
    );
    agent.write(answerBytes(103, { event: 'session', action: 'start', user: { name: 'x' } }));
    agent.write(answerBytes(103, [1, 2, 3]));
    await eventually(
      () => x.s.logs.filter((l) => l.ip === ip && /agent event ignored/.test(l.msg)).reduce((n, l) => n + Number(l.count), 0) === 2,
      'events with wrong types are ignored, both accounted for in the log',
    );
    assert.ok(agent.isConnected, 'the agent stays connected after all of them');
    await stillWorks(x, bystanderIp, bystander);
  } finally {
    await x.close();
  }
});

test('an inventory answer with a line of megabytes or too many lines fails its command, and what was stored stays', async () => {
  const x = await site(2);
  try {
    const [ip, bystanderIp] = x.ips as [string, string];
    const bystander = await x.connect(bystanderIp);
    const agent = await x.connect(ip);
    const hardware = async () => (await x.s.get('/hardware', { client: [ip] })).body.hardware.length;
    const software = async () => (await x.s.get('/software', { client: [ip], disk: 1, partition: 1 })).body.software;
    agent.on('hardware', { body: { hardware: 'cpu=Intel Core i5\nmem=8 GiB\n' } });
    agent.on('software', { body: { partition: '1', software: 'Ubuntu 22.04 LTS\nbash 5.1\n' } });
    await x.s.post('/hardware', { clients: [ip] });
    await eventually(async () => (await hardware()) === 2, 'a good hardware inventory stored first');
    await x.settled(ip);
    await x.s.post('/software', { clients: [ip], disk: 1, partition: 1 });
    await eventually(async () => (await software()).length === 1, 'and a good software inventory');
    const cases: [what: string, command: 'hardware' | 'software', body: object, why: RegExp][] = [
      [
        'a hardware line of 4 MB',
        'hardware',
        { hardware: `cpu=${'x'.repeat(4_000_000)}\nmem=8 GiB\n` },
        /a line of more than 1024 characters/,
      ],
      ['4,097 hardware lines', 'hardware', { hardware: 'mem=8 GiB\n'.repeat(4097) }, /more than 4096 hardware items/],
      [
        'a software line of 4 MB',
        'software',
        { partition: '1', software: `Ubuntu\n${'x'.repeat(4_000_000)}\n` },
        /a line of more than 1024 characters/,
      ],
      ['20,001 software lines', 'software', { partition: '1', software: 'Ubuntu\n'.repeat(20_001) }, /more than 20000 software lines/],
    ];
    for (const [what, command, body, why] of cases) {
      await x.settled(ip);
      agent.on(command, { body });
      await x.s.post(`/${command}`, { clients: [ip], ...(command === 'software' ? { disk: 1, partition: 1 } : {}) });
      await eventually(() => x.s.logs.some((l) => l.ip === ip && why.test(l.msg)), `${what}: the reason is logged`, 10_000);
      assert.equal((await x.settled(ip)).last_cmd.result, 'failure', `${what}: the command failed`);
      assert.ok(agent.isConnected, `${what}: the agent stays connected`);
    }
    assert.equal(await hardware(), 2, 'the stored hardware is unchanged');
    assert.deepEqual(await software(), ['bash 5.1'], 'the stored software is unchanged');
    await stillWorks(x, bystanderIp, bystander);
  } finally {
    await x.close();
  }
});

/** Write `total` bytes after `head`, 1 MiB at a time, until done or the server drops the connection; returns bytes written. */
async function flood(agent: FakeAgent, head: string, total: number): Promise<number> {
  const chunk = Buffer.alloc(1024 * 1024, 'a');
  let written = 0;
  agent.write(head);
  while (written < total && agent.isConnected && !agent.socket.destroyed) {
    const more = agent.socket.write(chunk);
    written += chunk.length;
    if (!more) await within(Promise.race([new Promise((r) => agent.socket.once('drain', r)), agent.closed]), 10_000, 'drain or close');
  }
  return written;
}

test('a 100 MB answer is dropped at max_answer_bytes without being buffered', async () => {
  const x = await site(3, { max_answer_bytes: 1024 * 1024 });
  try {
    const [declared, undeclared, bystanderIp] = x.ips as [string, string, string];
    const bystander = await x.connect(bystanderIp);
    const hundredMB = 100 * 1024 * 1024;
    const rssBefore = process.memoryUsage().rss;

    // It says how large it is: refused from the header, before any body byte is kept.
    const liar = await FakeAgent.connect({ port: x.link.port(), localAddress: declared });
    x.agents.push(liar);
    await liar.waitFor('refresh');
    const sent = await flood(liar, `HTTP/1.0 200 OK\r\nContent-Length: ${hundredMB}\r\n\r\n`, hundredMB);
    await within(liar.closed, 5000, 'the 100 MB answer is dropped');
    assert.ok(sent < hundredMB, `the connection was dropped before the 100 MB were written (${sent} bytes written)`);
    assert.ok(
      x.s.logs.some((l) => l.ip === declared && /exceeds agents.max_answer_bytes/.test(l.msg)),
      'the reason is logged',
    );

    // No length: the body is read as a header, which is bounded too.
    const stream = await FakeAgent.connect({ port: x.link.port(), localAddress: undeclared });
    x.agents.push(stream);
    await stream.waitFor('refresh');
    const streamed = await flood(stream, 'HTTP/1.0 200 OK\r\n', hundredMB);
    await within(stream.closed, 5000, 'the unbounded answer is dropped');
    assert.ok(streamed < hundredMB, `the connection was dropped before the 100 MB were written (${streamed} bytes written)`);

    // Were the answers buffered, the process would have grown by 100 MB or more.
    const grownMiB = (process.memoryUsage().rss - rssBefore) / 1048576;
    assert.ok(grownMiB < 64, `the server did not buffer the answers (RSS grew ${grownMiB.toFixed(1)} MiB)`);
    await stillWorks(x, bystanderIp, bystander);
  } finally {
    await x.close();
  }
});

test('a slowloris agent trickling its answer is dropped after answer_timeout_s', async () => {
  const x = await site(2, { answer_timeout_s: 1 });
  try {
    const [ip, bystanderIp] = x.ips as [string, string];
    // The bystander's answer arrives in pieces too, but completes in time.
    const bystander = await FakeAgent.connect({ port: x.link.port(), localAddress: bystanderIp });
    x.agents.push(bystander);
    bystander.on('refresh', { splitEvery: 16, body: defaultConfiguration });
    await eventually(async () => (await x.entry(bystanderIp))?.last_cmd.result === 'success', 'a split answer within the deadline is read');

    const slow = await FakeAgent.connect({ port: x.link.port(), localAddress: ip });
    x.agents.push(slow);
    slow.on('refresh', { none: true });
    await slow.waitFor('refresh');
    const bytes = Buffer.from(answerBytes(200, defaultConfiguration), 'latin1');
    let i = 0;
    // One byte every 300 ms: each byte arrives well within any idle timeout, the answer never.
    const trickle = setInterval(() => {
      if (slow.isConnected && i < bytes.length) slow.write(bytes.subarray(i, ++i));
    }, 300);
    try {
      await within(slow.closed, 10_000, 'the slowloris agent is dropped');
    } finally {
      clearInterval(trickle);
    }
    assert.ok(i < bytes.length, 'dropped before its answer was complete');
    assert.ok(
      x.s.logs.some((l) => l.ip === ip && /answer not complete within 1000 ms/.test(l.msg)),
      'the reason is logged',
    );
    await eventually(async () => (await x.entry(ip)) === undefined, 'no longer listed');
    await stillWorks(x, bystanderIp, bystander);
  } finally {
    await x.close();
  }
});

test('an agent that never answers its connect refresh is dropped after connect_timeout_s and blocks nobody', async () => {
  const x = await site(3, { connect_timeout_s: 1 });
  try {
    const [silentIp, bystanderIp, laterIp] = x.ips as [string, string, string];
    const silent = await FakeAgent.connect({ port: x.link.port(), localAddress: silentIp });
    x.agents.push(silent);
    silent.on('refresh', { none: true });
    await silent.waitFor('refresh');
    assert.equal((await x.entry(silentIp))?.state, 'BSY', 'shown busy while its refresh is outstanding');
    // Others connect and are served while it hangs.
    const bystander = await x.connect(bystanderIp);
    await within(silent.closed, 5000, 'the silent agent is dropped');
    assert.ok(
      x.s.logs.some((l) => l.ip === silentIp && /no answer to the connect refresh/.test(l.msg)),
      'the reason is logged',
    );
    await eventually(async () => (await x.entry(silentIp)) === undefined, 'no longer listed');
    const later = await x.connect(laterIp);
    assert.ok(later.isConnected, 'an agent connecting later is served');
    await new Promise((r) => setTimeout(r, 1500));
    assert.ok(bystander.isConnected && later.isConnected, 'agents that answered are not dropped by the connect deadline');
    await stillWorks(x, bystanderIp, bystander);
  } finally {
    await x.close();
  }
});

test('a connection holds no buffer after a large answer', async () => {
  const x = await site(1, { max_answer_bytes: 16 * 1024 * 1024 });
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    agent.on('hardware', { body: { hardware: `cpu=${'x'.repeat(8 * 1024 * 1024)}\n` } });
    await x.s.post('/hardware', { clients: [ip] });
    await eventually(
      async () => (await x.entry(ip))?.state === 'OPG' && (await x.entry(ip))?.last_cmd.result !== 'unknown',
      'the 8 MiB answer is read',
      20_000,
    );
    const conn = x.link.connection(ip);
    assert.ok(conn, 'still connected');
    assert.equal(conn.bufferedBytes, 0, 'the connection keeps no bytes of the answer');
    await x.s.post('/refresh', { clients: [ip] });
    await eventually(async () => (await x.entry(ip))?.state !== 'BSY', 'the next answer is read as usual');
    assert.equal(conn.bufferedBytes, 0, 'and nothing after it');
  } finally {
    await x.close();
  }
});

/** 127.2.x.y: the 1,000 reconnecting clients, apart from the site's 127.0.1.x. */
const loopAddress = (i: number) => `127.2.${Math.floor(i / 200)}.${(i % 200) + 1}`;

test('1,000 agents reconnecting in a loop leave no duplicate entries and no leaked connections', async () => {
  const x = await site(1);
  const count = 1000;
  let open: FakeAgent[] = [];
  try {
    const bystanderIp = x.ips[0]!;
    const bystander = await x.connect(bystanderIp);
    const room = await addRoom(x.s, x.center, 'Loop room', '255.0.0.0');
    const ips = Array.from({ length: count }, (_, i) => loopAddress(i));
    await x.s.app.database.transactional(async (em) => {
      for (let i = 0; i < ips.length; i += 200) {
        const chunk = ips.slice(i, i + 200);
        await execute(
          em,
          `insert into clients (name, ip, mac, room_id) values ${chunk.map(() => '(?, ?, ?, ?)').join(', ')}`,
          chunk.flatMap((ip, j) => [`loop-${i + j}`, ip, (0x100000 + i + j).toString(16).padStart(12, '0'), room]),
        );
      }
    });
    x.s.app.container.resolve(Inventory).tablesChanged();
    const connectAll = (list: string[]) =>
      Promise.all(list.map((localAddress) => FakeAgent.connect({ port: x.link.port(), localAddress, mode: 'linux' })));

    for (let round = 0; round < 3; round++) {
      const previous = open;
      // Even rounds: every agent drops its connection and reconnects. Odd rounds: the new
      // connection arrives while the old one is still open and replaces it.
      if (round % 2 === 0) for (const agent of previous) agent.destroy();
      open = [];
      for (let i = 0; i < ips.length; i += 250) open.push(...(await connectAll(ips.slice(i, i + 250))));
      await within(Promise.all(open.map((a) => a.waitFor('refresh', 0, 30_000))), 60_000, `round ${round}: every agent asked to refresh`);
      await within(Promise.all(previous.map((a) => a.closed)), 30_000, `round ${round}: every old connection closed`);
    }
    await eventually(
      async () => {
        const r = await x.s.get('/clients');
        return r.status === 200 && r.body.clients.length === count + 1;
      },
      'every agent listed once after the loop',
      30_000,
    );
    const listed = (await x.s.get('/clients')).body.clients.map((c: { addr: string }) => c.addr) as string[];
    assert.equal(new Set(listed).size, listed.length, 'no address is listed twice');
    assert.equal(x.link.connectedIps().length, count + 1, 'one connection object per agent');
    assert.equal(await x.link.socketCount(), count + 1, 'one open socket per agent');

    for (const agent of open) agent.destroy();
    await eventually(
      async () => x.link.connectedIps().length === 1 && (await x.link.socketCount()) === 1,
      'every connection released once the agents left',
      30_000,
    );
    assert.deepEqual(
      (await x.s.get('/clients')).body.clients.map((c: { addr: string }) => c.addr),
      [bystanderIp],
      'only the bystander is listed',
    );
    await stillWorks(x, bystanderIp, bystander);
  } finally {
    for (const agent of open) agent.destroy();
    await x.close();
  }
});

test.run();
