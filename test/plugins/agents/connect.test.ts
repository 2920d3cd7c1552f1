import assert from 'node:assert/strict';
import { test } from 'uvu';
import { FakeAgent, eventually, within } from '../../support/fake-agent';
import { site } from './helpers';

test('an agent that connects gets GET /refresh; its answer stores the disks in bytes and shows OPG', async () => {
  const x = await site(1);
  try {
    const ip = x.ips[0]!;
    const agent = await FakeAgent.connect({ port: x.link.port(), localAddress: ip });
    x.agents.push(agent);
    const refresh = await agent.waitFor('refresh');
    assert.equal(
      refresh.raw,
      'GET /refresh HTTP/1.1\r\nContent-Length: 0\r\nContent-Type: application/json\r\n\r\n',
      'refresh bytes as the reference',
    );
    await eventually(async () => (await x.entry(ip))?.last_cmd.result === 'success', 'refresh stored');
    assert.deepEqual(
      await x.entry(ip),
      { addr: ip, state: 'OPG', speed: 1000, last_cmd: { result: 'success' } },
      'GET /clients entry after refresh',
    );
    assert.ok(x.link.isConnected(ip), 'link knows the client is connected');
    assert.deepEqual(x.link.connectedIps(), [ip], 'connected list');

    const setup = await x.s.get('/client/setup', { client: [ip] });
    assert.equal(setup.status, 200, setup.text);
    const rows = setup.body.partitions.map((p: Record<string, unknown>) => [
      p.disk,
      p.partition,
      p.code,
      p.size,
      p.used_size,
      p.free_size,
      p.filesystem_name,
      p.os,
    ]);
    assert.deepEqual(
      rows,
      [
        [1, 0, 2, 104857600 * 1024, 0, 0, '', ''],
        [1, 1, 0xef00, 524288 * 1024, 53687091, 524288 * 1024 - 53687091, 'FAT32', ''],
        [1, 2, 0x8300, 52428800 * 1024, 13421772800, 52428800 * 1024 - 13421772800, 'EXT4', 'Ubuntu 22.04 LTS'],
      ],
      'KiB converted to bytes, hex codes read as hex, used/free derived from the percentage',
    );
    const info = await x.s.get('/client/info', { client: [ip] });
    assert.equal(info.body.serial_number, 'SN-1234', 'serial number stored from the refresh answer');
  } finally {
    await x.close();
  }
});

test('sizes beyond 2^53 bytes keep every digit', async () => {
  const x = await site(1);
  try {
    const huge = '4503599627370497'; // KiB: 2^52 + 1, so bytes are 2^62 + 1024
    const configuration = {
      serial_number: '',
      disk_setup: [{ disk: '1', disk_type: 'DISK', partition: '0', code: '1', filesystem: '', os: '', size: huge, used_size: '0' }],
      partition_setup: [
        { disk: '1', disk_type: '', partition: '1', code: '7', filesystem: 'NTFS', os: 'Windows 10', size: huge, used_size: '33.3' },
      ],
      link: 100,
    };
    await x.connect(x.ips[0]!, { configuration });
    const setup = await x.s.get('/client/setup', { client: [x.ips[0]] });
    const size = (BigInt(huge) * 1024n).toString();
    assert.ok(setup.text.includes(`"size":${size}`), `exact 64-bit byte size in the JSON: ${setup.text}`);
    const used = ((BigInt(huge) * 1024n * 333n) / 1000n).toString();
    assert.ok(setup.text.includes(`"used_size":${used}`), `used size from a decimal percentage, exact: ${setup.text}`);
    assert.equal(setup.body.partitions[1].code, 7, 'MBR code 7 (NTFS)');
  } finally {
    await x.close();
  }
});

test('a refresh answer that does not fit (size past 64 bits, bad code) fails and stores nothing', async () => {
  const x = await site(2);
  try {
    const entry = (size: string, code: string) => ({
      disk: '1',
      disk_type: '',
      partition: '1',
      code,
      filesystem: 'EXT4',
      os: '',
      size,
      used_size: '1',
    });
    await x.connect(x.ips[0]!, {
      configuration: { serial_number: 'X', disk_setup: [], partition_setup: [entry('9007199254740993', '83')] },
    });
    await x.connect(x.ips[1]!, { configuration: { serial_number: 'Y', disk_setup: [], partition_setup: [entry('10', 'zz')] } });
    for (const ip of x.ips) {
      assert.equal((await x.entry(ip))?.last_cmd.result, 'failure', `${ip}: refresh answer refused`);
      const setup = await x.s.get('/client/setup', { client: [ip] });
      assert.deepEqual(setup.body.partitions, [], `${ip}: nothing stored`);
    }
    assert.ok(
      x.s.logs.some((l) => /size is not a non-negative integer/.test(l.msg)),
      'reason logged',
    );
  } finally {
    await x.close();
  }
});

test('Linux and Windows agents show LNX and WIN from their refresh answer', async () => {
  const x = await site(2);
  try {
    await x.connect(x.ips[0]!, { mode: 'linux' });
    await x.connect(x.ips[1]!, { mode: 'windows' });
    assert.equal((await x.entry(x.ips[0]!))?.state, 'LNX', 'linux agent');
    assert.equal((await x.entry(x.ips[1]!))?.state, 'WIN', 'windows agent');
    const setup = await x.s.get('/client/setup', { client: [x.ips[0]] });
    assert.deepEqual(setup.body.partitions, [], 'an OS agent answer stores no disks');
  } finally {
    await x.close();
  }
});

test('until the connect refresh is answered the client shows BSY', async () => {
  const x = await site(1);
  try {
    const agent = await FakeAgent.connect({ port: x.link.port(), localAddress: x.ips[0]! });
    x.agents.push(agent);
    agent.on('refresh', { delayMs: 300, body: { status: 'LINUX' } });
    await agent.waitFor('refresh');
    assert.deepEqual(
      await x.entry(x.ips[0]!),
      { addr: x.ips[0], state: 'BSY', last_cmd: { result: 'unknown' } },
      'busy while refreshing, no speed reported yet',
    );
    await eventually(async () => (await x.entry(x.ips[0]!))?.state === 'LNX', 'LNX after the answer');
    assert.deepEqual(
      await x.entry(x.ips[0]!),
      { addr: x.ips[0], state: 'LNX', last_cmd: { result: 'success' } },
      'a Linux agent that reports no link speed is listed without one',
    );
  } finally {
    await x.close();
  }
});

test('connections from addresses no client has are logged once per address per interval, with a count', async () => {
  const x = await site(1);
  try {
    for (let i = 0; i < 30; i++) {
      const stranger = await FakeAgent.connect({ port: x.link.port(), localAddress: '127.0.9.7' });
      await within(stranger.closed, 5000, `connection ${i} closed`);
    }
    const other = await FakeAgent.connect({ port: x.link.port(), localAddress: '127.0.9.8' });
    await within(other.closed, 5000, 'the other address closed');
    const lines = x.s.logs.filter((l) => /no client has/.test(l.msg));
    assert.equal(lines.filter((l) => l.ip === '127.0.9.7').length, 1, `30 connections, one line within the interval: ${lines.length}`);
    assert.equal(lines.filter((l) => l.ip === '127.0.9.8').length, 1, 'another address gets its own line');
  } finally {
    await x.close();
  }
});

test('at the end of the interval a refused address gets one summary line with its count', async () => {
  const x = await site(1, { peer_log_interval_s: 0.3 });
  try {
    for (let i = 0; i < 20; i++) {
      const stranger = await FakeAgent.connect({ port: x.link.port(), localAddress: '127.0.9.7' });
      await within(stranger.closed, 5000, `connection ${i} closed`);
    }
    const counted = () =>
      x.s.logs.filter((l) => l.ip === '127.0.9.7' && /no client has/.test(l.msg)).reduce((n, l) => n + Number(l.count), 0);
    await eventually(() => counted() === 20, 'all 20 accounted for in the log');
    assert.ok(
      x.s.logs.some((l) => l.ip === '127.0.9.7' && /closed \d+ more time\(s\) within 0\.3 s/.test(l.msg)),
      'a summary line with the count',
    );
  } finally {
    await x.close();
  }
});

test('a connection from an address no client has is logged and closed', async () => {
  const x = await site(1);
  try {
    const stranger = await FakeAgent.connect({ port: x.link.port(), localAddress: '127.0.9.9' });
    await within(stranger.closed, 5000, 'server closes the unknown agent');
    assert.equal(stranger.requests.length, 0, 'no request sent to an unknown address');
    assert.ok(
      x.s.logs.some((l) => l.ip === '127.0.9.9' && /no client has/.test(l.msg)),
      'refusal logged with the address',
    );
    assert.equal(x.link.isConnected('127.0.9.9'), false, 'not listed');
  } finally {
    await x.close();
  }
});

test('a reconnect from the same address replaces the old connection: one entry', async () => {
  const x = await site(1);
  try {
    const ip = x.ips[0]!;
    const first = await x.connect(ip);
    const second = await x.connect(ip, { mode: 'linux' });
    await within(first.closed, 5000, 'old connection released');
    const r = await x.s.get('/clients');
    assert.equal(r.body.clients.filter((c: { addr: string }) => c.addr === ip).length, 1, 'no duplicate entry');
    assert.equal((await x.entry(ip))?.state, 'LNX', 'state from the new connection');
    assert.ok(second.isConnected, 'new connection kept');
  } finally {
    await x.close();
  }
});

test('GET /clients lists the most recently connected first; disconnects leave the list', async () => {
  const x = await site(3);
  try {
    const agents = [];
    for (const ip of x.ips) agents.push(await x.connect(ip));
    const r = await x.s.get('/clients');
    assert.deepEqual(
      r.body.clients.map((c: { addr: string }) => c.addr),
      [...x.ips].reverse(),
      'most recent first',
    );
    await agents[1]!.close();
    await eventually(() => !x.link.isConnected(x.ips[1]!), 'disconnect seen');
    const after = await x.s.get('/clients');
    assert.deepEqual(
      after.body.clients.map((c: { addr: string }) => c.addr),
      [x.ips[2], x.ips[0]],
      'the disconnected client is gone',
    );
    assert.ok(!x.s.logs.some((l) => /GET \/clients/.test(l.msg)), 'GET /clients is not logged');
  } finally {
    await x.close();
  }
});

test('listing providers (WOL_SENT) come first; a connected address is not listed twice', async () => {
  const x = await site(2);
  try {
    await x.connect(x.ips[0]!);
    x.link.addListing(() => [
      { addr: '127.0.1.200', state: 'WOL_SENT', last_cmd: { result: 'unknown' } },
      { addr: x.ips[0]!, state: 'WOL_SENT', last_cmd: { result: 'unknown' } },
    ]);
    const r = await x.s.get('/clients');
    assert.deepEqual(
      r.body.clients,
      [
        { addr: '127.0.1.200', state: 'WOL_SENT', last_cmd: { result: 'unknown' } },
        { addr: x.ips[0], state: 'OPG', speed: 1000, last_cmd: { result: 'success' } },
      ],
      'WOL_SENT first, without speed; the connected client once',
    );
  } finally {
    await x.close();
  }
});

test('listeners of agent.connected and agent.disconnected on the bus hear each agent', async () => {
  const x = await site(1);
  try {
    const heard: string[] = [];
    x.s.app.events.on('test', 'agent.connected', ({ client }) => void heard.push(`up ${client}`));
    x.s.app.events.on('test', 'agent.disconnected', ({ client }) => void heard.push(`down ${client}`));
    const agent = await x.connect(x.ips[0]!);
    await agent.close();
    await eventually(() => heard.length === 2, 'both events');
    assert.deepEqual(heard, [`up ${x.ips[0]}`, `down ${x.ips[0]}`], 'connect then disconnect');
  } finally {
    await x.close();
  }
});

test('deleting the client drops its agent; deleting its center deletes the stored partitions', async () => {
  const x = await site(2);
  try {
    const agent = await x.connect(x.ips[0]!);
    await x.connect(x.ips[1]!);
    await x.s.post('/hardware', { clients: [x.ips[0]] });
    await x.s.post('/software', { clients: [x.ips[1]], disk: 1, partition: 2 });
    await eventually(
      async () => (await x.s.get('/software', { client: [x.ips[1]], disk: 1, partition: 2 })).body.software.length === 2,
      'software stored',
    );
    await eventually(async () => (await x.s.get('/hardware', { client: [x.ips[0]] })).body.hardware.length === 3, 'hardware stored');
    const count = async (table: string) =>
      Number((await x.s.app.database.query<{ n: number }>(`select count(*) as n from ${table}`))[0]!.n);
    assert.equal(await count('partitions'), 6, 'three rows per refreshed client');
    const r = await x.s.post('/center/delete', { id: x.center });
    assert.equal(r.status, 200, r.text);
    assert.equal(await count('partitions'), 0, 'partitions cascade with the center');
    assert.equal(await count('client_hardware'), 0, 'hardware inventory cascades');
    assert.equal(await count('client_software'), 0, 'software inventory cascades');
    await within(agent.closed, 5000, 'agent of a deleted client is dropped');
    assert.deepEqual(x.link.connectedIps(), [], 'nobody listed');
  } finally {
    await x.close();
  }
});

test.run();
