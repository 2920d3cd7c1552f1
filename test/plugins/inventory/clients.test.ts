import assert from 'node:assert/strict';
import { test } from 'uvu';
import { Inventory } from '../../../plugins/inventory';
import { addCenter, addClient, addRoom } from '../../support/fixtures';
import { withServer } from '../../support/server';

test('client add stores every field; info reports them with maintenance and server_id', () =>
  withServer(async (s) => {
    const center = await addCenter(s);
    const room = await addRoom(s, center);
    const repo = (await s.post('/repository/add', { name: 'repo', ip: '10.9.9.9' })).body.id;
    const server = (await s.post('/server', { ip: '10.9.9.1' })).body.id;
    const body = {
      name: 'pc01',
      serial_number: 'SN123',
      ip: '10.0.0.11',
      mac: 'AA:BB:CC:DD:EE:01',
      room,
      netmask: '255.255.255.0',
      netiface: 'eth0',
      netdriver: 'generic',
      livedir: 'ogLive-x',
      boot: 'pxe',
      repo_id: repo,
      server_id: server,
      hardware_id: 3,
      remote: true,
      maintenance: true,
      id: 999,
      center: 999,
    };
    const r = await s.post('/client/add', body);
    assert.equal(r.status, 200, r.text);
    const info = (await s.get('/client/info', { client: ['10.0.0.11'] })).body;
    assert.deepEqual(
      info,
      {
        id: r.body.id,
        name: 'pc01',
        serial_number: 'SN123',
        ip: '10.0.0.11',
        mac: 'aabbccddee01',
        room,
        center,
        folder_id: 0,
        hardware_id: 3,
        repo_id: repo,
        server_id: server,
        netmask: '255.255.255.0',
        netiface: 'eth0',
        netdriver: 'generic',
        livedir: 'ogLive-x',
        boot: 'pxe',
        remote: true,
        maintenance: true,
      },
      'every field as stored; unknown keys (id, center) ignored',
    );
  }));

test('a new client without boot settings boots the default live image', () =>
  withServer(async (s) => {
    const room = await addRoom(s, await addCenter(s));
    await addClient(s, room, '10.0.0.12', '02:00:00:00:00:12');
    const info = (await s.get('/client/info', { client: ['10.0.0.12'] })).body;
    assert.equal(info.boot, 'ogLive', 'boot mode');
    assert.equal(info.livedir, 'ogLive', 'live image directory');
    assert.equal(info.maintenance, false, 'maintenance reports the stored value');
  }));

test('MACs are unique in any notation; the owner is logged', () =>
  withServer(async (s) => {
    const room = await addRoom(s, await addCenter(s));
    await addClient(s, room, '10.0.0.1', '00:11:22:33:44:55', { name: 'owner' });
    for (const mac of ['001122334455', '00-11-22-33-44-55', '00:11:22:33:44:55'.toUpperCase()]) {
      const r = await s.post('/client/add', { ip: '10.0.0.2', mac, room });
      assert.equal(r.status, 400, `duplicate ${mac}`);
      assert.equal(r.body.field, 'mac', 'field');
    }
    assert.ok(
      s.logs.some((l) => l.level === 'warn' && /name=owner ip=10\.0\.0\.1 mac=001122334455 room=\d+/.test(l.msg)),
      'owner name, ip, mac and room logged',
    );
  }));

test('IPs are unique', () =>
  withServer(async (s) => {
    const room = await addRoom(s, await addCenter(s));
    await addClient(s, room, '10.0.0.1', '02:00:00:00:00:01');
    const r = await s.post('/client/add', { ip: '10.0.0.1', mac: '02:00:00:00:00:02', room });
    assert.equal(r.status, 400, 'status');
    assert.equal(r.body.field, 'ip', 'field');
  }));

test('a refused add names the first rule it breaks (room, ip, mac, repo_id, server_id, folder_id) and writes nothing', () =>
  withServer(async (s) => {
    const center = await addCenter(s);
    const room = await addRoom(s, center);
    const other = await addRoom(s, center, 'Other');
    await addClient(s, room, '10.0.0.1', '02:00:00:00:00:01', { name: 'owner' });
    const folderOfOther = (await s.post('/folder/add', { name: 'Row', room: other })).body.id;
    const fresh = { ip: '10.0.0.2', mac: '02:00:00:00:00:02', room };
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ ...fresh, room: 999, ip: '10.0.0.1', mac: '02:00:00:00:00:01', repo_id: 999 }, 'room', /no room with id 999/],
      [{ ...fresh, ip: '10.0.0.1', mac: '02:00:00:00:00:01', repo_id: 999 }, 'ip', /'owner' \(id \d+\) already has ip 10\.0\.0\.1/],
      [{ ...fresh, mac: '02:00:00:00:00:01', server_id: 999 }, 'mac', /'owner' \(ip 10\.0\.0\.1\) already has mac 020000000001/],
      [{ ...fresh, repo_id: 999, server_id: 999, folder_id: folderOfOther }, 'repo_id', /no repository with id 999/],
      [{ ...fresh, server_id: 999, folder_id: folderOfOther }, 'server_id', /no server with id 999/],
      [{ ...fresh, folder_id: folderOfOther }, 'folder_id', /belongs to another room/],
      [{ ...fresh, room: 999, folder_id: folderOfOther }, 'room', /no room with id 999/],
    ];
    for (const [body, field, message] of cases) {
      const r = await s.post('/client/add', body);
      assert.equal(r.status, 400, `${JSON.stringify(body)}: status`);
      assert.equal(r.body.field, field, `${JSON.stringify(body)}: field (${r.text})`);
      assert.match(r.body.message, message, `${JSON.stringify(body)}: message`);
    }
    const rows = await s.app.database.query<{ n: number }>('select count(*) as n from clients');
    assert.equal(Number(rows[0]!.n), 1, 'only the first client is stored');
    assert.equal((await s.post('/client/add', fresh)).status, 200, 'the fresh client is then added');
  }));

test("client update changes fields by id and refuses another client's MAC or IP", () =>
  withServer(async (s) => {
    const center = await addCenter(s);
    const room = await addRoom(s, center);
    const other = await addRoom(s, center, 'Other');
    const a = await addClient(s, room, '10.0.0.1', '02:00:00:00:00:01');
    await addClient(s, room, '10.0.0.2', '02:00:00:00:00:02');
    const taken = await s.post('/client/update', { id: a, mac: '020000000002' });
    assert.equal(taken.status, 400, 'MAC of another client');
    assert.equal(taken.body.field, 'mac', 'field');
    assert.equal((await s.post('/client/update', { id: a, ip: '10.0.0.2' })).body.field, 'ip', 'IP of another client');
    assert.equal((await s.post('/client/update', { id: a, mac: '02:00:00:00:00:01' })).status, 200, 'keeping its own MAC');
    const r = await s.post('/client/update', { id: String(a), ip: '10.0.0.50', name: 'moved', boot: 'pxe', room: other });
    assert.equal(r.status, 200, r.text);
    const info = (await s.get('/client/info', { client: ['10.0.0.50'] })).body;
    assert.equal(info.name, 'moved', 'name');
    assert.equal(info.boot, 'pxe', 'boot');
    assert.equal(info.room, other, 'room');
    assert.equal((await s.get('/client/info', { client: ['10.0.0.1'] })).status, 400, 'old IP no longer known');
    assert.equal((await s.post('/client/update', { id: 999, name: 'x' })).body.field, 'id', 'unknown id');
  }));

test('client.removed is told on delete and when IP or MAC changes; client.saved on add and update', () =>
  withServer(async (s) => {
    const events: string[] = [];
    s.app.events.on('test', 'client.removed', (c) => void events.push(`removed ${c.ip} ${c.mac}`));
    s.app.events.on('test', 'client.saved', (c) => void events.push(`saved ${c.ip} ${c.boot}`), 'record the test event');
    const room = await addRoom(s, await addCenter(s));
    const id = await addClient(s, room, '10.0.0.1', '02:00:00:00:00:01');
    await s.post('/client/update', { id, name: 'same address' });
    await s.post('/client/update', { id, ip: '10.0.0.2' });
    await s.post('/client/update', { id, mac: '02:00:00:00:00:09' });
    await s.post('/client/delete', { clients: ['10.0.0.2', '10.9.9.9'] });
    assert.deepEqual(
      events,
      [
        'saved 10.0.0.1 ogLive',
        'saved 10.0.0.1 ogLive',
        'removed 10.0.0.1 020000000001',
        'saved 10.0.0.2 ogLive',
        'removed 10.0.0.2 020000000001',
        'saved 10.0.0.2 ogLive',
        'removed 10.0.0.2 020000000009',
      ],
      'hook order',
    );
  }));

test('client/delete removes the listed clients and ignores unknown addresses', () =>
  withServer(async (s) => {
    const room = await addRoom(s, await addCenter(s));
    await addClient(s, room, '10.0.0.1', '02:00:00:00:00:01');
    await addClient(s, room, '10.0.0.2', '02:00:00:00:00:02');
    assert.equal((await s.post('/client/delete', { clients: ['10.0.0.1', '10.0.0.99'] })).status, 200, 'delete');
    assert.equal((await s.get('/client/info', { client: ['10.0.0.1'] })).status, 400, 'deleted');
    assert.equal((await s.get('/client/info', { client: ['10.0.0.2'] })).status, 200, 'kept');
  }));

test('GET /client/info, once read, follows every later write of the client', () =>
  withServer(async (s) => {
    const center = await addCenter(s);
    const from = await addRoom(s, center, 'From');
    const to = await addRoom(s, center, 'To');
    const id = await addClient(s, from, '10.0.0.1', '02:00:00:00:00:01');
    const info = async () => {
      const r = await s.get('/client/info', { client: ['10.0.0.1'] });
      assert.equal(r.status, 200, r.text);
      return r.body;
    };
    const writes: [string, () => Promise<unknown>, Record<string, unknown>][] = [
      ['update', () => s.post('/client/update', { id, name: 'renamed', serial_number: 'SN9' }), { name: 'renamed', serial_number: 'SN9' }],
      ['mode', () => s.post('/mode', { clients: ['10.0.0.1'], mode: 'ogLive' }), { boot: 'ogLive' }],
      ['move', () => s.post('/client/move', { clients: ['10.0.0.1'], room: to }), { room: to }],
      ['repo', () => s.post('/client/repo', { clients: ['10.0.0.1'], id: 0 }), { repo_id: 0 }],
      ['mac', () => s.post('/client/update', { id, mac: '02:00:00:00:00:09' }), { mac: '020000000009' }],
    ];
    for (const [what, write, expected] of writes) {
      await info();
      await info();
      const r = (await write()) as { status: number; text: string };
      assert.equal(r.status, 200, `${what}: ${r.text}`);
      const after = await info();
      for (const [field, value] of Object.entries(expected)) assert.equal(after[field], value, `${what}: ${field}`);
    }
  }));

test('client/move moves clients to a room and folder; unknown clients refuse the whole move', () =>
  withServer(async (s) => {
    const center = await addCenter(s);
    const from = await addRoom(s, center, 'From');
    const to = await addRoom(s, center, 'To');
    const folder = (await s.post('/folder/add', { name: 'Row', room: to })).body.id;
    await addClient(s, from, '10.0.0.1', '02:00:00:00:00:01');
    await addClient(s, from, '10.0.0.2', '02:00:00:00:00:02');
    const partial = await s.post('/client/move', { clients: ['10.0.0.1', '10.0.0.77'], room: to, folder_id: folder });
    assert.equal(partial.status, 400, 'unknown client');
    assert.equal((await s.get('/client/info', { client: ['10.0.0.1'] })).body.room, from, 'nothing moved');
    assert.equal((await s.post('/client/move', { clients: ['10.0.0.1', '10.0.0.2'], room: to, folder_id: folder })).status, 200, 'move');
    const info = (await s.get('/client/info', { client: ['10.0.0.2'] })).body;
    assert.equal(info.room, to, 'room');
    assert.equal(info.folder_id, folder, 'folder');
    await s.post('/client/move', { clients: ['10.0.0.2'], room: to, folder_id: 0 });
    assert.equal((await s.get('/client/info', { client: ['10.0.0.2'] })).body.folder_id, 0, 'folder_id 0 = no folder');
    assert.equal((await s.post('/client/move', { clients: ['10.0.0.2'], room: 99 })).body.field, 'room', 'unknown room');
  }));

test('client/repo and client/server assign by id; 0 clears; unknown ids refused', () =>
  withServer(async (s) => {
    const room = await addRoom(s, await addCenter(s));
    await addClient(s, room, '10.0.0.1', '02:00:00:00:00:01');
    const repo = (await s.post('/repository/add', { name: 'r', ip: '10.5.0.1' })).body.id;
    const server = (await s.post('/server', { ip: '10.5.0.2' })).body.id;
    assert.equal((await s.post('/client/repo', { clients: ['10.0.0.1'], id: repo })).status, 200, 'repo');
    assert.equal((await s.post('/client/server', { clients: ['10.0.0.1'], id: String(server) })).status, 200, 'server');
    let info = (await s.get('/client/info', { client: ['10.0.0.1'] })).body;
    assert.equal(info.repo_id, repo, 'repo_id');
    assert.equal(info.server_id, server, 'server_id');
    assert.equal((await s.post('/client/repo', { clients: ['10.0.0.1'], id: 404 })).body.field, 'id', 'unknown repository');
    assert.equal((await s.post('/client/server', { clients: ['10.0.0.9'], id: server })).body.field, 'clients', 'unknown client');
    await s.post('/client/repo', { clients: ['10.0.0.1'], id: 0 });
    await s.request('DELETE', '/server', { id: server });
    info = (await s.get('/client/info', { client: ['10.0.0.1'] })).body;
    assert.equal(info.repo_id, 0, 'cleared');
    assert.equal(info.server_id, 0, 'deleting the server clears the assignment');
  }));

test('client/info needs exactly one known, well-formed address', () =>
  withServer(async (s) => {
    assert.equal((await s.get('/client/info', { client: [] })).status, 400, 'none');
    assert.equal((await s.get('/client/info', { client: ['10.0.0.1', '10.0.0.2'] })).status, 400, 'two');
    assert.equal((await s.get('/client/info', { client: ['10.0.0'] })).body.field, 'client[0]', 'malformed');
    const unknown = await s.get('/client/info', { client: ['10.0.0.1'] });
    assert.equal(unknown.body.error, 'unknown_id', 'unknown');
    assert.equal((await s.get('/client/info')).status, 400, 'no body');
  }));

test('partitions stored for a client are reported by /client/setup with 64-bit byte sizes', () =>
  withServer(async (s) => {
    const room = await addRoom(s, await addCenter(s));
    const id = await addClient(s, room, '10.0.0.1', '02:00:00:00:00:01');
    const inventory = s.app.container.resolve(Inventory);
    const huge = 2n ** 60n + 7n;
    await inventory.storeDiskSetup(
      id,
      [
        { disk: 1, partition: 0, diskType: 'DISK', code: 2, size: huge, filesystem: '', os: '' },
        {
          disk: 1,
          partition: 1,
          code: 0x83,
          size: 1024n * 1024n,
          usedSize: 512n,
          freeSize: 1048064n,
          filesystem: 'EXT4',
          os: 'Ubuntu 24.04',
        },
      ],
      'SN-9',
    );
    const r = await s.get('/client/setup', { client: ['10.0.0.1'] });
    assert.ok(r.text.includes(`"size":${huge}`), `size beyond 2^53 exact: ${r.text}`);
    assert.equal(r.body.partitions.length, 2, 'two rows');
    assert.equal(r.body.partitions[1].filesystem, 6, 'EXT4 as the reference id');
    assert.equal(r.body.partitions[1].os, 'Ubuntu 24.04', 'os');
    assert.equal((await s.get('/client/info', { client: ['10.0.0.1'] })).body.serial_number, 'SN-9', 'empty serial filled');
    await inventory.storeDiskSetup(id, [{ disk: 1, partition: 0, code: 2, size: huge, filesystem: '', os: '' }], 'OTHER');
    const after = await s.get('/client/setup', { client: ['10.0.0.1'] });
    assert.equal(after.body.partitions.length, 1, 'unreported partition removed');
    assert.equal((await s.get('/client/info', { client: ['10.0.0.1'] })).body.serial_number, 'SN-9', 'serial only fills an empty one');
  }));

test.run();
