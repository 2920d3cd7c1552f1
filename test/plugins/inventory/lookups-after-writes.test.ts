import assert from 'node:assert/strict';
import { test } from 'uvu';
import { addCenter, addClient, addRoom } from '../../support/fixtures';
import { withServer, type TestServer } from '../../support/server';

/**
 * Client lookups are served from memory: every write through the REST interface must show
 * in the very next answer, whichever way it reaches a client's record.
 */
const info = async (s: TestServer, ip: string) => {
  const r = await s.get('/client/info', { client: [ip] });
  return r.status === 200 ? r.body : { status: r.status };
};

test('two clients swapping addresses, a deleted client whose address is taken again, and a new client are seen at once', () =>
  withServer(async (s) => {
    const room = await addRoom(s, await addCenter(s));
    const a = await addClient(s, room, '127.0.9.1', 'aa0000000001');
    const b = await addClient(s, room, '127.0.9.2', 'aa0000000002');
    assert.equal((await info(s, '127.0.9.1')).id, a, 'read once: the lookups are loaded');
    for (const [id, ip] of [
      [a, '127.0.9.3'],
      [b, '127.0.9.1'],
      [a, '127.0.9.2'],
    ] as const)
      assert.equal((await s.post('/client/update', { id, ip })).status, 200);
    assert.equal((await info(s, '127.0.9.1')).id, b);
    assert.equal((await info(s, '127.0.9.2')).id, a);
    assert.deepEqual(await info(s, '127.0.9.3'), { status: 400 }, 'the address in between is nobody');
    assert.equal((await s.post('/client/update', { id: a, mac: 'aa00000000ff' })).status, 200);
    assert.equal((await info(s, '127.0.9.2')).mac, 'aa00000000ff');

    assert.equal((await s.post('/client/delete', { clients: ['127.0.9.1'] })).status, 200);
    assert.deepEqual(await info(s, '127.0.9.1'), { status: 400 }, 'deleted');
    const c = await addClient(s, room, '127.0.9.1', 'aa0000000002');
    assert.equal((await info(s, '127.0.9.1')).id, c, 'the address and MAC of a deleted client, taken again');
  }));

test('moving clients, assigning repositories and servers, and deleting what holds them or they point at show in their records', () =>
  withServer(async (s) => {
    const center = await addCenter(s);
    const room = await addRoom(s, center);
    const other = await addRoom(s, center, 'Other');
    await addClient(s, room, '127.0.9.1', 'aa0000000001');
    assert.equal((await info(s, '127.0.9.1')).room, room);
    const folder = (await s.post('/folder/add', { name: 'f', room: other })).body.id;
    assert.equal((await s.post('/client/move', { clients: ['127.0.9.1'], room: other, folder_id: folder })).status, 200);
    assert.deepEqual([(await info(s, '127.0.9.1')).room, (await info(s, '127.0.9.1')).folder_id], [other, folder], 'moved');
    assert.equal((await s.post('/folder/delete', { id: folder })).status, 200);
    assert.deepEqual(await info(s, '127.0.9.1'), { status: 400 }, 'gone with its folder');
    await addClient(s, other, '127.0.9.1', 'aa0000000001');

    const repo = (await s.post('/repository/add', { name: 'r', ip: '10.1.0.1' })).body.id;
    assert.equal((await s.post('/client/repo', { clients: ['127.0.9.1'], id: repo })).status, 200);
    assert.equal((await info(s, '127.0.9.1')).repo_id, repo, 'assigned');
    assert.equal((await s.post('/repository/delete', { id: repo })).status, 200);
    assert.equal((await info(s, '127.0.9.1')).repo_id, 0, 'its repository deleted');

    const server = (await s.post('/server', { ip: '10.1.0.2', port: 2008 })).body.id;
    assert.equal((await s.post('/client/server', { clients: ['127.0.9.1'], id: server })).status, 200);
    assert.equal((await info(s, '127.0.9.1')).server_id, server, 'assigned');
    assert.equal((await s.request('DELETE', '/server', { id: server })).status, 200);
    assert.equal((await info(s, '127.0.9.1')).server_id, 0, 'its server deleted');

    assert.equal((await s.post('/room/delete', { id: other })).status, 200);
    assert.deepEqual(await info(s, '127.0.9.1'), { status: 400 }, 'gone with its room');
  }));

test('a boot mode set by its command shows in the record', () =>
  withServer(async (s) => {
    const room = await addRoom(s, await addCenter(s));
    await addClient(s, room, '127.0.9.1', 'aa0000000001');
    const before = await info(s, '127.0.9.1');
    const mode = (await s.get('/mode')).body.modes.find((m: string) => m !== before.boot);
    assert.equal((await s.post('/mode', { clients: ['127.0.9.1'], mode })).status, 200);
    assert.equal((await info(s, '127.0.9.1')).boot, mode);
  }));

test.run();
