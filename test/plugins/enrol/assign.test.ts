import assert from 'node:assert/strict';
import { test } from 'uvu';
import { AgentLink } from '../../../plugins/agents';
import { ImageStore } from '../../../plugins/images';
import { FakeAgent, eventually } from '../../support/fake-agent';
import { addCenter, addClient, addRoom } from '../../support/fixtures';
import type { TestServer } from '../../support/server';
import { bootUnknown, discovered, discoverPc, enrolServer, lab } from './helpers';

const macs = ['52:54:00:00:09:11', '52:54:00:00:09:12', '52:54:00:00:09:13'];

/** A site with a room on the discovery network (pc01 in it already) and three PCs discovered, in arrival order. */
async function site(options: Parameters<typeof enrolServer>[0] = {}) {
  const s = await enrolServer(options);
  const link = s.app.container.resolve(AgentLink);
  const agents: FakeAgent[] = [];
  try {
    const center = await addCenter(s);
    const room = await addRoom(s, center, 'Lab 3', '255.255.255.0', { gateway: `${lab}.1` });
    await addClient(s, room, `${lab}.2`, '02:00:00:00:00:01', { name: 'lab3-pc01' });
    // Arrival order differs from MAC order.
    for (const [i, mac] of [macs[2]!, macs[0]!, macs[1]!].entries())
      agents.push(await discoverPc(s, link.port(), { mac, ip: `${lab}.${200 + i}`, serial: `SN${i}` }));
    return { s, link, room, center, agents, close: () => closeAll(s, agents) };
  } catch (error) {
    await closeAll(s, agents);
    throw error;
  }
}

async function closeAll(s: TestServer, agents: FakeAgent[]): Promise<void> {
  for (const agent of agents) agent.destroy();
  await s.close();
}

test('a dry run answers the names and addresses the PCs would get, in arrival order, and writes nothing', async () => {
  const x = await site();
  try {
    const r = await x.s.post('/discovered/assign', { macs, room: x.room, names: 'lab3-pc{nn}', dry_run: true });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, {
      dry_run: true,
      clients: [
        { mac: macs[2], ip: `${lab}.200`, name: 'lab3-pc02' },
        { mac: macs[0], ip: `${lab}.201`, name: 'lab3-pc03' },
        { mac: macs[1], ip: `${lab}.202`, name: 'lab3-pc04' },
      ],
    });
    const byMac = await x.s.post('/discovered/assign', {
      macs,
      room: x.room,
      names: 'lab3-pc{nn}',
      order: 'mac',
      addresses: `${lab}.1`,
      dry_run: true,
    });
    assert.deepEqual(
      byMac.body.clients.map((c: { mac: string; ip: string; name: string }) => [c.mac, c.ip, c.name]),
      [
        [macs[0], `${lab}.3`, 'lab3-pc02'],
        [macs[1], `${lab}.4`, 'lab3-pc03'],
        [macs[2], `${lab}.5`, 'lab3-pc04'],
      ],
      'by MAC; addresses past the router and pc01',
    );
    assert.equal((await discovered(x.s)).length, 3);
    assert.equal((await x.s.get('/scopes')).body.scope[0].scope[0].scope.length, 1, 'the room holds pc01 only');
  } finally {
    await x.close();
  }
});

test('assigning makes them clients of the room in one request: names, addresses, mode, serial and hardware; they reboot into their mode', async () => {
  const x = await site();
  try {
    const heard: any[] = [];
    x.s.app.events.on('test', 'discovered.assigned', (payload) => void heard.push(payload));
    const r = await x.s.post('/discovered/assign', { macs, room: x.room, names: 'lab3-pc{nn}', mode: 'ogLive' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.dry_run, false);
    assert.deepEqual(
      r.body.clients.map((c: { name: string }) => c.name),
      ['lab3-pc02', 'lab3-pc03', 'lab3-pc04'],
    );
    assert.deepEqual(await discovered(x.s), [], 'no longer discovered');
    const info = await x.s.get('/client/info', { client: [`${lab}.200`] });
    assert.equal(info.status, 200, info.text);
    assert.equal(info.body.name, 'lab3-pc02');
    assert.equal(info.body.mac, '525400000913');
    assert.equal(info.body.room, x.room);
    assert.equal(info.body.boot, 'ogLive');
    assert.equal(info.body.serial_number, 'SN0');
    const hardware = await x.s.get('/hardware', { client: [`${lab}.200`] });
    assert.equal(hardware.body.hardware.length, 7, "the hardware it reported is the client's");
    for (const agent of x.agents) assert.ok(await agent.waitFor('reboot'), 'rebooted into its own mode');
    assert.deepEqual(heard, [{ room: x.room, clients: r.body.clients }]);

    // Its next boot is its own script, not the discovery one.
    const script = await bootUnknown(x.s, macs[2]!, `${lab}.200`);
    assert.doesNotMatch(script, /ogdiscover/);
    assert.match(script, /ip=127\.0\.9\.200:/);
    // And its agent is the client's: listed in GET /clients.
    const agent = await FakeAgent.connect({ port: x.link.port(), localAddress: `${lab}.200` });
    x.agents.push(agent);
    await eventually(
      async () =>
        (await x.s.get('/clients')).body.clients.find((c: { addr: string; state: string }) => c.addr === `${lab}.200` && c.state === 'OPG'),
      'the new client OPG',
    );
  } finally {
    await x.close();
  }
});

test('reboot false lets the agent go: it connects again, as the client when it keeps its address', async () => {
  const x = await site();
  try {
    const r = await x.s.post('/discovered/assign', { macs: [macs[2]], room: x.room, names: 'lab3-pc{nn}', reboot: false });
    assert.equal(r.status, 200, r.text);
    await x.agents[0]!.closed;
    assert.ok(!x.agents[0]!.requests.some((q) => q.path === 'reboot'));
    const agent = await FakeAgent.connect({ port: x.link.port(), localAddress: `${lab}.200` });
    x.agents.push(agent);
    await agent.waitFor('refresh');
    await eventually(
      async () => (await x.s.get('/clients')).body.clients.some((c: { addr: string }) => c.addr === `${lab}.200`),
      'a client',
    );
  } finally {
    await x.close();
  }
});

test('one refusal refuses them all, naming the PC and the field; nothing is written', async () => {
  const x = await site();
  try {
    const refused = async (body: Record<string, unknown>, field: string, message: RegExp) => {
      const r = await x.s.post('/discovered/assign', { macs, room: x.room, names: 'lab3-pc{nn}', ...body });
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.field, field, r.text);
      assert.match(r.body.message, message);
    };
    await refused({ macs: [...macs, '52:54:00:00:09:99'] }, 'macs', /no discovered PC has MAC 52:54:00:00:09:99/);
    await refused({ room: 999 }, 'room', /no room with id 999/);
    await refused({ names: 'lab' }, 'names', /gives 3 PCs the same name/);
    await refused({ addresses: `${lab}.253` }, 'addresses', /has 2 free addresses from 127\.0\.9\.253 up, not 3/);
    await refused({ mode: 'no-such-mode' }, 'mode', /^52:54:00:00:09:13: .*no-such-mode/);
    // pc01's address, given as the current address of none: a client takes one discovered PC's address meanwhile.
    await addClient(x.s, x.room, `${lab}.201`, '02:00:00:00:00:02', { name: 'other' });
    await refused({}, 'addresses', /127\.0\.9\.201 is client other's address/);
    await refused({ restore: { id: 1, disk: 1, partition: 1, type: 'UNICAST' } }, 'restore', /needs the images plugin/);
    assert.equal((await discovered(x.s)).length, 3, 'every PC still discovered');
    assert.deepEqual((await x.s.get('/scopes')).body.scope[0].scope[0].scope.map((c: { name: string }) => c.name).sort(), [
      'lab3-pc01',
      'other',
    ]);
  } finally {
    await x.close();
  }
});

test('forget: the PCs go from the list, switched off first when asked; unknown MACs are ignored', async () => {
  const x = await site();
  try {
    const heard: unknown[] = [];
    x.s.app.events.on('test', 'discovered.forgotten', (payload) => void heard.push(payload));
    const r = await x.s.post('/discovered/forget', { macs: [macs[0], '52:54:00:00:09:99'], poweroff: true });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { forgotten: [macs[0]] });
    assert.ok(await x.agents[1]!.waitFor('poweroff'));
    const plain = await x.s.post('/discovered/forget', { macs: [macs[1]] });
    assert.deepEqual(plain.body, { forgotten: [macs[1]] });
    await x.agents[2]!.closed;
    assert.ok(!x.agents[2]!.requests.some((q) => q.path === 'poweroff'));
    assert.deepEqual(
      (await discovered(x.s)).map((d) => d.mac),
      [macs[2]],
    );
    assert.deepEqual(heard, [
      { macs: [macs[0]], reason: 'asked' },
      { macs: [macs[1]], reason: 'asked' },
    ]);
  } finally {
    await x.close();
  }
});

test('at most enrol.max_pending are kept, the oldest forgotten first; a MAC added as a client is never discovered again', async () => {
  const s = await enrolServer({ enrol: { max_pending: 2 } });
  try {
    const heard: unknown[] = [];
    s.app.events.on('test', 'discovered.forgotten', (payload) => void heard.push(payload));
    for (const [i, mac] of macs.entries()) await bootUnknown(s, mac, `${lab}.${50 + i}`);
    assert.deepEqual(
      (await discovered(s)).map((d) => d.mac),
      [macs[1], macs[2]],
    );
    assert.deepEqual(heard, [{ macs: [macs[0]], reason: 'limit' }]);

    const center = await addCenter(s);
    const room = await addRoom(s, center);
    await addClient(s, room, '10.1.1.5', macs[1]!);
    assert.deepEqual(
      (await discovered(s)).map((d) => d.mac),
      [macs[2]],
      'added by /client/add: not discovered any more',
    );
    assert.deepEqual(heard[1], { macs: [macs[1]], reason: 'client' });
    const script = await bootUnknown(s, macs[1]!, `${lab}.51`);
    assert.doesNotMatch(script, /ogdiscover/, 'its own script');
    assert.equal((await discovered(s)).length, 1);
  } finally {
    await s.close();
  }
});

test('a rule assigns a matching PC as soon as its hardware is read; another stays for a click', async () => {
  const s = await enrolServer({
    enrol: { rules: [{ model: 'optiplex', network: `${lab}.0/24`, room: 1, names: 'auto-{nn}', mode: 'ogLive' }] },
  });
  const link = s.app.container.resolve(AgentLink);
  const agents: FakeAgent[] = [];
  try {
    const center = await addCenter(s);
    assert.equal(await addRoom(s, center, 'Auto'), 1);
    const heard: any[] = [];
    s.app.events.on('test', 'discovered.assigned', (payload) => void heard.push(payload));
    await bootUnknown(s, macs[0]!, `${lab}.60`);
    const dell = await FakeAgent.connect({ port: link.port(), localAddress: `${lab}.60` });
    agents.push(dell);
    dell.on('hardware', { body: { hardware: 'mod=Dell Inc. OptiPlex 7090\ncpu=Intel Core i5\n' } });
    await dell.waitFor('reboot');
    const info = await s.get('/client/info', { client: [`${lab}.60`] });
    assert.equal(info.body.name, 'auto-01');
    assert.equal(info.body.boot, 'ogLive');
    assert.deepEqual(heard, [{ room: 1, rule: 1, clients: [{ mac: macs[0], ip: `${lab}.60`, name: 'auto-01' }] }]);

    agents.push(await discoverPc(s, link.port(), { mac: macs[1]!, ip: `${lab}.61`, model: 'HP EliteDesk 800' }));
    assert.equal((await discovered(s)).length, 1, 'the HP waits');
  } finally {
    for (const agent of agents) agent.destroy();
    await s.close();
  }
});

test("a PC whose serial number is a client's is shown moved?, cannot be assigned, and once confirmed the client takes its MAC", async () => {
  const s = await enrolServer();
  const link = s.app.container.resolve(AgentLink);
  const agents: FakeAgent[] = [];
  try {
    const center = await addCenter(s);
    const room = await addRoom(s, center);
    await addClient(s, room, '10.1.1.7', '02:00:00:00:00:07', { name: 'desk7', serial_number: 'CZC777' });
    // Its network card changed: a new MAC.
    agents.push(await discoverPc(s, link.port(), { mac: macs[0]!, ip: `${lab}.70`, serial: 'CZC777' }));
    const [pc] = await discovered(s);
    assert.deepEqual(pc.moved, { id: pc.moved.id, ip: '10.1.1.7', name: 'desk7', mac: '02:00:00:00:00:07' });
    const assign = await s.post('/discovered/assign', { macs: [macs[0]], room });
    assert.equal(assign.status, 400);
    assert.match(assign.body.message, /confirm that it is that client/);
    const confirmed = await s.post('/discovered/confirm', { macs: [macs[0]] });
    assert.equal(confirmed.status, 200, confirmed.text);
    assert.deepEqual(confirmed.body, { clients: [{ mac: macs[0], ip: '10.1.1.7', name: 'desk7' }] });
    assert.equal((await s.get('/client/info', { client: ['10.1.1.7'] })).body.mac, '525400000911');
    assert.deepEqual(await discovered(s), []);
    assert.ok(await agents[0]!.waitFor('reboot'), 'rebooted to take its address');
  } finally {
    for (const agent of agents) agent.destroy();
    await s.close();
  }
});

test('a restore asked with the assignment is sent as one job once the new clients are up after their reboot', async () => {
  const x = await site({ plugins: ['inventory', 'agents', 'pxe-modes', 'live', 'transfers', 'boot', 'enrol', 'images', 'jobs'] });
  try {
    const repo = await x.s.post('/repository/add', { name: 'repo', ip: `${lab}.250` });
    const image = await x.s.app.container.resolve(ImageStore).saveCapture({
      name: 'win11',
      repositoryId: repo.body.id,
      clientId: 0,
      disk: 1,
      partition: 1,
      code: 7,
      size: 1n,
      datasize: 1n,
      checksum: '',
      permissions: '644',
      lastUpdate: 0n,
      clonator: '',
      compressor: '',
      filesystem: '',
    });
    const heard: any[] = [];
    x.s.app.events.on('test', 'discovered.restore', (payload) => void heard.push(payload));
    const restore = { id: image, disk: 1, partition: 1, type: 'UNICAST' };
    const bad = await x.s.post('/discovered/assign', { macs, room: x.room, names: 'lab3-pc{nn}', restore: { ...restore, disk: 'x' } });
    assert.equal(bad.status, 400);
    assert.match(bad.body.field, /^restore\.disk/);
    const r = await x.s.post('/discovered/assign', { macs: macs.slice(0, 2), room: x.room, names: 'lab3-pc{nn}', restore });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.restore_waiting, [`${lab}.201`, `${lab}.202`]);
    // They reboot; their agents come back as the clients'.
    const back = [];
    for (const ip of r.body.restore_waiting) back.push(await FakeAgent.connect({ port: x.link.port(), localAddress: ip }));
    x.agents.push(...back);
    for (const agent of back) assert.equal((await agent.waitFor('image/restore')).body.name, 'win11');
    await eventually(() => heard.length === 1, 'discovered.restore');
    assert.deepEqual(heard[0].clients, [`${lab}.201`, `${lab}.202`]);
    assert.deepEqual(heard[0].missing, []);
    const job = await x.s.get(`/jobs/${heard[0].job}`);
    assert.equal(job.status, 200, job.text);
    assert.equal(job.body.kind ?? job.body.command, 'image/restore');
  } finally {
    await x.close();
  }
});

test('an assignment is in the audit log with the clients it made', async () => {
  const x = await site({ plugins: ['inventory', 'agents', 'pxe-modes', 'live', 'transfers', 'boot', 'enrol', 'audit'] });
  try {
    const r = await x.s.post('/discovered/assign', { macs: [macs[2]], room: x.room, names: 'lab3-pc{nn}' });
    assert.equal(r.status, 200, r.text);
    const entry = await eventually(async () => (await x.s.get('/audit?path=/discovered/assign')).body.entries[0], 'the audit entry');
    assert.equal(entry.status, 200);
    assert.deepEqual(
      entry.changes.map((c: { entity: string; field: string; after: unknown }) => `${c.entity} ${c.field}: ${c.after}`),
      [`client ip: ${lab}.200`, 'client mac: 525400000913', 'client name: lab3-pc02'],
    );
  } finally {
    await x.close();
  }
});

test.run();
