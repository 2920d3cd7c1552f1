// Engine-independent: runs once, on SQLite.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { container } from 'tsyringe';
import { ManualClock } from '../../../testing';
import { AgentLink } from '../../../plugins/agents';
import { EnrolClock } from '../../../plugins/enrol';
import { FakeAgent, eventually } from '../../support/fake-agent';
import * as ogcli from '../../contract/ogcli';
import { PythonClient } from '../../contract/python-client';
import * as read from '../../contract/readers';
import { addCenter, addClient, addRoom } from '../../support/fixtures';
import { startServer } from '../../support/server';
import { bootUnknown, discovered, discoverPc, enrolServer, hardwareOf, lab } from './helpers';

test('an unknown MAC in a discovery network boots the live image with the discovery flag, and is listed as booted', async () => {
  const s = await enrolServer();
  try {
    const heard: unknown[] = [];
    s.app.events.on('test', 'discovered.booted', (payload) => void heard.push(payload));
    const script = await bootUnknown(s, '52-54-00-00-09-01', `${lab}.20`);
    assert.match(script, /^kernel http:\/\/10\.0\.2\.100\/boot\/files\/ogLive\/ogvmlinuz\?mac=525400000901 .* ip=dhcp .*ogdiscover=true /m);
    assert.match(script, /^initrd http:\/\/10\.0\.2\.100\/boot\/files\/ogLive\/oginitrd\.img\?mac=525400000901 /m);
    const [pc, ...others] = await discovered(s);
    assert.deepEqual(others, []);
    assert.equal(pc.mac, '52:54:00:00:09:01');
    assert.equal(pc.ip, `${lab}.20`);
    assert.equal(pc.network, `${lab}.0/24`);
    assert.equal(pc.state, 'booted');
    assert.equal(pc.connected, false);
    assert.deepEqual(pc.hardware, []);
    assert.deepEqual(heard, [{ mac: '52:54:00:00:09:01', address: `${lab}.20`, network: `${lab}.0/24`, first: true }]);

    // Outside the discovery network an unknown MAC boots its disk, as before, and is not kept.
    const local = await bootUnknown(s, '52:54:00:00:08:01', '127.0.8.20');
    assert.match(local, /sanboot --no-describe --drive 0x80/);
    assert.doesNotMatch(local, /kernel/);
    assert.equal((await discovered(s)).length, 1);
  } finally {
    await s.close();
  }
});

test("its agent is taken at once: its disks, serial and hardware read and listed; it is no client's agent", async () => {
  const s = await enrolServer();
  const link = s.app.container.resolve(AgentLink);
  let agent: FakeAgent | undefined;
  try {
    const reported: any[] = [];
    s.app.events.on('test', 'discovered.reported', (payload) => void reported.push(payload));
    agent = await discoverPc(s, link.port(), {
      mac: '52:54:00:00:09:02',
      ip: `${lab}.21`,
      model: 'Dell Inc. OptiPlex 7090',
      serial: 'CZC1234',
    });
    assert.deepEqual(
      agent.requests.map((r) => `${r.method} ${r.path}`),
      ['GET refresh', 'GET hardware'],
      'the inventory commands only, refresh first',
    );
    const [pc] = await discovered(s);
    assert.equal(pc.state, 'discovered');
    assert.equal(pc.connected, true);
    assert.equal(pc.serial_number, 'CZC1234');
    assert.equal(pc.model, 'Dell Inc. OptiPlex 7090');
    assert.deepEqual(pc.disks, [{ disk: 1, size: 500107608 * 1024 }]);
    assert.deepEqual(
      pc.hardware.map((c: { type: string }) => c.type),
      ['mod', 'boa', 'cpu', 'mem', 'mem', 'dis', 'net'],
    );
    assert.equal(pc.moved, null);
    assert.ok(pc.discovered_at >= pc.booted_at, 'discovered after its boot');
    assert.deepEqual(reported, [
      {
        mac: '52:54:00:00:09:02',
        address: `${lab}.21`,
        network: `${lab}.0/24`,
        model: 'Dell Inc. OptiPlex 7090',
        serial_number: 'CZC1234',
      },
    ]);

    // The reference's clients see nothing of it: no entry in GET /clients, commands find no agent there.
    assert.deepEqual((await s.get('/clients')).body, { clients: [] });
    const refresh = await s.post('/refresh', { clients: [`${lab}.21`] });
    assert.equal(refresh.status, 200, refresh.text);
    assert.deepEqual(refresh.body.clients, [{ addr: `${lab}.21`, outcome: 'not_connected' }]);
    assert.equal(agent.requests.length, 2, 'nothing more sent to it');
  } finally {
    agent?.destroy();
    await s.close();
  }
});

test('an agent from an address where no PC booted for discovery is refused as before, and so is one outside the window', async () => {
  const s = await enrolServer({ enrol: { boot_window_s: 10 } });
  const link = s.app.container.resolve(AgentLink);
  try {
    // Outside every discovery network.
    const stranger = await FakeAgent.connect({ port: link.port(), localAddress: '127.0.8.30' });
    await stranger.closed;
    assert.deepEqual(stranger.requests, []);
    assert.ok(s.logs.some((l) => l.msg.startsWith('agent connection from an address no client has') && l.ip === '127.0.8.30'));
    // In the network, but no PC booted there and its serial names no client.
    const unknown = await FakeAgent.connect({ port: link.port(), localAddress: `${lab}.31` });
    await unknown.closed;
    assert.deepEqual(
      unknown.requests.map((r) => r.path),
      ['refresh'],
      'asked for its serial number only',
    );
    assert.deepEqual(await discovered(s), []);
    // It is not asked again for a while: refused at once.
    const again = await FakeAgent.connect({ port: link.port(), localAddress: `${lab}.31` });
    await again.closed;
    assert.deepEqual(again.requests, []);
  } finally {
    await s.close();
  }
});

test('without enrol an unknown agent is refused; boot.unknown_client discover without it stops the start, naming the plugin', async () => {
  await assert.rejects(
    startServer({
      config: { plugins: ['inventory', 'agents', 'pxe-modes', 'live', 'transfers', 'boot'], boot: { unknown_client: 'discover' } },
    }),
    /boot\.unknown_client says 'discover', but no enabled plugin discovers PCs: add "enrol" to plugins/,
  );
  await assert.rejects(
    startServer({
      config: {
        plugins: ['inventory', 'agents', 'pxe-modes', 'live', 'transfers', 'boot'],
        boot: { unknown_client: { '10.1.0.0/33': 'local' } },
      },
    }),
    /boot\.unknown_client: '10\.1\.0\.0\/33' is not a network/,
  );
});

test('the hardware of a PC that reports again replaces what it said; a second boot keeps its row and first sighting', async () => {
  const s = await enrolServer();
  const link = s.app.container.resolve(AgentLink);
  const agents: FakeAgent[] = [];
  try {
    const mac = '52:54:00:00:09:03';
    agents.push(await discoverPc(s, link.port(), { mac, ip: `${lab}.22`, model: 'HP EliteDesk 800' }));
    const [first] = await discovered(s);
    agents[0]!.destroy();
    await eventually(async () => (await discovered(s))[0].connected === false, 'its agent gone');
    // It boots again, now at another address, with more memory.
    await bootUnknown(s, mac, `${lab}.23`);
    const agent = await FakeAgent.connect({ port: link.port(), localAddress: `${lab}.23` });
    agents.push(agent);
    agent.on('hardware', { body: { hardware: `${hardwareOf('HP EliteDesk 800')}mem=Samsung 16GiB DDR4\n` } }, true);
    await eventually(async () => (await discovered(s))[0].hardware.length === 8, 'the new hardware');
    const [again] = await discovered(s);
    assert.equal(again.ip, `${lab}.23`);
    assert.equal(again.first_seen, first.first_seen);
    assert.ok(again.booted_at > first.booted_at);
  } finally {
    for (const agent of agents) agent.destroy();
    await s.close();
  }
});

test("ogCLI's and ogCP's calls are answered as before a PC was discovered: no entry, no scope, no command reaches it", async () => {
  const s = await enrolServer();
  const link = s.app.container.resolve(AgentLink);
  const py = new PythonClient(s.port);
  let agent: FakeAgent | undefined;
  try {
    const center = await addCenter(s, 'School');
    const room = await addRoom(s, center, 'Lab 1');
    await addClient(s, room, '127.0.7.1', '02:00:00:00:07:01');
    const known = await FakeAgent.connect({ port: link.port(), localAddress: '127.0.7.1' });
    await known.waitFor('refresh');
    await eventually(async () => (await s.get('/clients')).body.clients[0]?.state === 'OPG', 'the known client OPG');
    // What their dashboards, trees and lists read, byte for byte, as python-requests sends it.
    const reads = ['/clients', '/scopes', '/mode', '/images', '/repositories', '/oglive/list'];
    const before = new Map<string, string>();
    for (const path of reads) before.set(path, (await py.get(path)).text);
    const ip = `${lab}.40`;
    agent = await discoverPc(s, link.port(), { mac: '52:54:00:00:09:40', ip });
    for (const path of reads) assert.equal((await py.get(path)).text, before.get(path), `GET ${path} as before`);
    assert.deepEqual(
      read.clients(await py.read('/clients')).map((c) => c.addr),
      ['127.0.7.1'],
    );
    // Per-client reads refuse its address as any address no client has.
    for (const path of ['/client/info', '/client/setup', '/hardware']) {
      const asked = await py.get(path, { client: [ip] });
      const other = await py.get(path, { client: ['127.0.6.99'] });
      assert.equal(asked.status, other.status, path);
      assert.equal(asked.text.replace(ip, 'X'), other.text.replace('127.0.6.99', 'X'), path);
    }
    // ogCLI's `send poweroff --center-id`: the center holds the known client only.
    assert.deepEqual(await ogcli.expand(py, { centerIds: [center] }), ['127.0.7.1']);
    // Commands naming its address: not connected, as for a PC that is off; ogCP's probe is not sent to it.
    for (const path of ['/clients', '/refresh', '/hardware', '/poweroff', '/reboot']) {
      const r = await py.post(path, { clients: [ip] });
      assert.equal(r.status, 200, `${path}: ${r.text}`);
      if (r.json) assert.deepEqual((r.json as { clients: unknown }).clients, [{ addr: ip, outcome: 'not_connected' }], path);
    }
    assert.deepEqual(
      agent.requests.map((r) => r.path),
      ['refresh', 'hardware'],
      'nothing but its discovery reached it',
    );
    known.destroy();
  } finally {
    agent?.destroy();
    await s.close();
  }
});

test('agents of discovered PCs are taken at most enrol.agents_per_minute per network: the next waits for the next minute', async () => {
  const clock = new ManualClock(Date.parse('2026-03-02T08:00:00Z'));
  const services = container.createChildContainer();
  services.register(EnrolClock, { useValue: clock });
  const s = await enrolServer({ enrol: { agents_per_minute: 1 }, container: services });
  const link = s.app.container.resolve(AgentLink);
  const agents: FakeAgent[] = [];
  try {
    await discoverPc(s, link.port(), { mac: '52:54:00:00:09:a1', ip: `${lab}.81` }).then((a) => agents.push(a));
    await bootUnknown(s, '52:54:00:00:09:a2', `${lab}.82`);
    const waiting = await FakeAgent.connect({ port: link.port(), localAddress: `${lab}.82` });
    agents.push(waiting);
    await waiting.closed;
    assert.deepEqual(waiting.requests, [], 'refused this minute');
    assert.ok(s.logs.some((l) => /enrol\.agents_per_minute reached in 127\.0\.9\.0\/24/.test(l.msg)));
    await clock.advance(60_000);
    const next = await FakeAgent.connect({ port: link.port(), localAddress: `${lab}.82` });
    agents.push(next);
    await next.waitFor('hardware');
  } finally {
    for (const agent of agents) agent.destroy();
    await s.close();
  }
});

test('GET /discovered is refused to a token limited to rooms: discovered PCs are in none', async () => {
  const s = await enrolServer({ plugins: ['inventory', 'agents', 'pxe-modes', 'live', 'transfers', 'boot', 'enrol', 'tokens'] });
  try {
    const center = await addCenter(s);
    const room = await addRoom(s, center);
    await bootUnknown(s, '52:54:00:00:09:b1', `${lab}.91`);
    const made = await s.post('/tokens', { name: 'desk', role: 'admin', rooms: [room] });
    assert.equal(made.status, 200, made.text);
    const limited = await s.request('GET', '/discovered', undefined, { Authorization: made.body.secret });
    assert.equal(limited.status, 403, limited.text);
    const whole = await s.post('/tokens', { name: 'reader', role: 'reader' });
    const reader = await s.request('GET', '/discovered', undefined, { Authorization: whole.body.secret });
    assert.equal(reader.body.discovered.length, 1);
    const assign = await s.request(
      'POST',
      '/discovered/assign',
      { macs: ['52:54:00:00:09:b1'], room },
      { Authorization: whole.body.secret },
    );
    assert.equal(assign.status, 403, 'a reader may not assign');
  } finally {
    await s.close();
  }
});

test.run();
