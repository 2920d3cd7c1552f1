import assert from 'node:assert/strict';
import { test } from 'uvu';
import { addCenter, addClient, addRoom } from '../../support/fixtures';
import { withServer, type TestServer } from '../../support/server';

const MARKER = 0x10000;

async function addFolder(s: TestServer, body: Record<string, unknown>): Promise<number> {
  const r = await s.post('/folder/add', body);
  assert.equal(r.status, 200, `folder/add: ${r.text}`);
  return r.body.id;
}

function find(nodes: any[], type: string, id: number): any {
  for (const n of nodes) {
    if (n.type === type && n.id === id) return n;
    const inner = find(n.scope, type, id);
    if (inner) return inner;
  }
  return undefined;
}

test('room folders carry raw ids, computer folders the 0x10000 marker; both show in /scopes', () =>
  withServer(async (s) => {
    const center = await addCenter(s);
    const roomFolder = await addFolder(s, { name: 'Building A', center });
    assert.ok(roomFolder < MARKER, 'room folder id has no marker');
    const room = await addRoom(s, center, 'Lab', '255.255.255.0', { folder_id: roomFolder });
    const pcFolder = await addFolder(s, { name: 'Row 1', room });
    assert.ok(pcFolder & MARKER, 'computer folder id carries the marker');
    await addClient(s, room, '10.0.0.1', macOf(1), { folder_id: pcFolder });
    const scopes = (await s.get('/scopes')).body.scope;
    const folderNode = find(scopes, 'folder', roomFolder);
    assert.equal(folderNode.name, 'Building A', 'room folder node');
    assert.equal(folderNode.scope[0].type, 'room', 'room inside its folder');
    const pcFolderNode = find(scopes, 'folder', pcFolder);
    assert.equal(pcFolderNode.scope[0].ip, '10.0.0.1', 'client inside its computer folder');
    assert.equal((await s.get('/client/info', { client: ['10.0.0.1'] })).body.folder_id, pcFolder, 'client/info folder_id');
  }));

test('sub-folders are of their parent\'s kind; rename through /folder/update', () =>
  withServer(async (s) => {
    const center = await addCenter(s);
    const parent = await addFolder(s, { name: 'Top', center });
    const child = await addFolder(s, { name: 'Child', folder_id: parent });
    assert.ok(child < MARKER, 'sub-folder of a room folder is a room folder');
    const room = await addRoom(s, center);
    const pcParent = await addFolder(s, { name: 'Rows', room });
    const pcChild = await addFolder(s, { name: 'Row 2', folder_id: pcParent });
    assert.ok(pcChild & MARKER, 'sub-folder of a computer folder is a computer folder');
    assert.equal((await s.post('/folder/update', { id: child, name: 'Renamed' })).status, 200, 'rename room folder');
    assert.equal((await s.post('/folder/update', { id: pcChild, name: 'Row two' })).status, 200, 'rename computer folder');
    const scopes = (await s.get('/scopes')).body.scope;
    assert.equal(find(scopes, 'folder', child).name, 'Renamed', 'room folder renamed');
    assert.equal(find(scopes, 'folder', pcChild).name, 'Row two', 'computer folder renamed');
    assert.equal(find(scopes, 'folder', parent).scope[0].id, child, 'nested under its parent');
  }));

test('folder/add needs exactly one of center, room or folder_id, each existing', () =>
  withServer(async (s) => {
    const center = await addCenter(s);
    const room = await addRoom(s, center);
    assert.equal((await s.post('/folder/add', { name: 'x' })).status, 400, 'none given');
    assert.equal((await s.post('/folder/add', { name: 'x', center, room })).status, 400, 'two given');
    const unknown = await s.post('/folder/add', { name: 'x', center: 99 });
    assert.equal(unknown.status, 400, 'unknown center');
    assert.equal(unknown.body.field, 'center', 'field');
    assert.equal((await s.post('/folder/add', { name: 'x', room: 99 })).body.field, 'room', 'unknown room');
    assert.equal((await s.post('/folder/add', { name: 'x', folder_id: 99 })).body.field, 'folder_id', 'unknown parent');
    assert.equal((await s.post('/folder/update', { id: 99, name: 'x' })).status, 400, 'rename unknown');
  }));

test('a room goes only in a room folder of its center; a client only in a computer folder of its room', () =>
  withServer(async (s) => {
    const a = await addCenter(s, 'A');
    const b = await addCenter(s, 'B');
    const folderOfB = await addFolder(s, { name: 'F', center: b });
    const wrongCenter = await s.post('/room/add', { center: a, name: 'r', netmask: '255.255.255.0', folder_id: folderOfB });
    assert.equal(wrongCenter.status, 400, 'room folder of another center');
    const room1 = await addRoom(s, a, 'R1');
    const room2 = await addRoom(s, a, 'R2');
    const pcFolder = await addFolder(s, { name: 'Rows', room: room2 });
    const asRoomFolder = await s.post('/room/add', { center: a, name: 'r', netmask: '255.255.255.0', folder_id: pcFolder });
    assert.equal(asRoomFolder.status, 400, 'computer folder used as a room folder');
    const otherRoom = await s.post('/client/add', { ip: '10.0.0.9', mac: macOf(9), room: room1, folder_id: pcFolder });
    assert.equal(otherRoom.status, 400, 'computer folder of another room');
    assert.equal(otherRoom.body.field, 'folder_id', 'field');
    const legacy = await s.post('/room/add', { center: b, name: 'legacy', netmask: '255.255.255.0', group: folderOfB });
    assert.equal(legacy.status, 200, 'the older key `group` is accepted');
    assert.equal((await s.get('/room/info', { id: legacy.body.id })).body.folder_id, folderOfB, 'stored as folder_id');
  }));

test('deleting a room folder deletes its sub-folders, rooms and their clients in one go', () =>
  withServer(async (s) => {
    const center = await addCenter(s);
    const top = await addFolder(s, { name: 'Top', center });
    const sub = await addFolder(s, { name: 'Sub', folder_id: top });
    const inTop = await addRoom(s, center, 'R1', '255.255.255.0', { folder_id: top });
    const inSub = await addRoom(s, center, 'R2', '255.255.255.0', { folder_id: sub });
    const outside = await addRoom(s, center, 'R3');
    await addClient(s, inTop, '10.0.1.1', macOf(1));
    await addClient(s, inSub, '10.0.2.1', macOf(2));
    await addClient(s, outside, '10.0.3.1', macOf(3));
    assert.equal((await s.post('/folder/delete', { id: String(top) })).status, 200, 'delete');
    assert.equal((await s.get('/room/info', { id: inTop })).status, 400, 'room in folder gone');
    assert.equal((await s.get('/room/info', { id: inSub })).status, 400, 'room in sub-folder gone');
    assert.equal((await s.get('/client/info', { client: ['10.0.2.1'] })).status, 400, 'client of a nested room gone');
    assert.equal((await s.get('/client/info', { client: ['10.0.3.1'] })).status, 200, 'client outside kept');
    assert.equal((await s.get('/room/info', { id: outside })).status, 200, 'room outside kept');
  }));

test('deleting a computer folder deletes the clients in it and its sub-folders, not the room', () =>
  withServer(async (s) => {
    const center = await addCenter(s);
    const room = await addRoom(s, center);
    const rows = await addFolder(s, { name: 'Rows', room });
    const row1 = await addFolder(s, { name: 'Row 1', folder_id: rows });
    await addClient(s, room, '10.0.0.1', macOf(1), { folder_id: rows });
    await addClient(s, room, '10.0.0.2', macOf(2), { folder_id: row1 });
    await addClient(s, room, '10.0.0.3', macOf(3));
    assert.equal((await s.post('/folder/delete', { id: rows })).status, 200, 'delete');
    assert.equal((await s.get('/client/info', { client: ['10.0.0.1'] })).status, 400, 'client in folder gone');
    assert.equal((await s.get('/client/info', { client: ['10.0.0.2'] })).status, 400, 'client in sub-folder gone');
    assert.equal((await s.get('/client/info', { client: ['10.0.0.3'] })).status, 200, 'client outside kept');
    assert.equal((await s.get('/room/info', { id: room })).status, 200, 'room kept');
    assert.equal((await s.post('/folder/delete', { id: rows })).status, 200, 'deleting again answers 200');
  }));

function macOf(n: number): string {
  return `02:00:00:00:00:${n.toString(16).padStart(2, '0')}`;
}

test.run();
