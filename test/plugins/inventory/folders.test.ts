import assert from 'node:assert/strict';
import { test } from 'uvu';
import { execute } from '../../../core/database';
import { parseFolderId } from '../../../plugins/inventory';
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

test("sub-folders are of their parent's kind; rename through /folder/update", () =>
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

test('ids no folder can have are refused naming the field: wrapped past 2^32, 0, 65536, past 131071; nothing deleted or changed', () =>
  withServer(async (s) => {
    const center = await addCenter(s);
    const room = await addRoom(s, center);
    const roomFolder = await addFolder(s, { name: 'Rooms', center });
    const pcFolder = await addFolder(s, { name: 'Row 1', room });
    assert.equal(pcFolder, MARKER + 1, 'the first computer folder is 65537');
    await addClient(s, room, '10.0.0.1', macOf(1), { folder_id: pcFolder });
    const before = (await s.get('/scopes')).text;
    // 2^32 + 65537 once read as 65537; 196609 (0x30001) as computer folder 131073; 65536 as computer folder 0.
    const ids = [
      2 ** 32 + pcFolder,
      String(2 ** 32 + pcFolder),
      2 ** 32 + roomFolder,
      0,
      MARKER,
      String(MARKER),
      2 * MARKER,
      0x30001,
      2 ** 31 - 1,
    ];
    for (const id of ids) {
      const cases: [string, Record<string, unknown>, string][] = [
        ['/folder/delete', { id }, 'id'],
        ['/folder/update', { id, name: 'Renamed' }, 'id'],
        ['/client/move', { clients: ['10.0.0.1'], room, folder_id: id }, 'folder_id'],
        ['/folder/add', { name: 'Sub', folder_id: id }, 'folder_id'],
        ['/room/add', { center, name: 'R', netmask: '255.255.255.0', folder_id: id }, 'folder_id'],
      ];
      for (const [path, body, field] of cases) {
        if (id === 0 && (path === '/client/move' || path === '/room/add')) continue; // there 0 means no folder
        const r = await s.post(path, body);
        assert.equal(r.status, 400, `${path} ${JSON.stringify(body)}: ${r.text}`);
        assert.deepEqual([r.body.error, r.body.field], ['invalid_field', field], `${path} ${JSON.stringify(body)}: ${r.text}`);
      }
    }
    assert.equal((await s.get('/scopes')).text, before, 'no folder deleted, renamed or added; the client not moved');
    assert.equal((await s.get('/client/info', { client: ['10.0.0.1'] })).body.folder_id, pcFolder, 'the client is still in its folder');
  }));

test('a computer folder past table id 65535 is refused, nothing written; table id 65535 is public id 131071', () =>
  withServer(async (s) => {
    const room = await addRoom(s, await addCenter(s));
    await insertLastFolderRow(s, 'computer_folders', 'room_id', room);
    const last = 2 * MARKER - 1;
    assert.equal(
      (await s.post('/folder/update', { id: last, name: 'Last row' })).status,
      200,
      'the last computer folder is reachable as 131071',
    );
    for (const body of [
      { name: 'One more', room },
      { name: 'One more', folder_id: last },
    ]) {
      const r = await s.post('/folder/add', body);
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
      assert.equal(r.body.error, 'conflict', 'refused as exhausted');
      assert.match(r.body.message, /no more computer folders can be created \(at most 65535\)/, 'the message says why');
    }
    assert.equal(await rowCount(s, 'computer_folders'), 1, 'no row written');
  }));

test('a room folder past table id 65535 is refused, nothing written', () =>
  withServer(async (s) => {
    const center = await addCenter(s);
    await insertLastFolderRow(s, 'room_folders', 'center_id', center);
    assert.equal(
      (await s.post('/folder/update', { id: MARKER - 1, name: 'Last' })).status,
      200,
      'the last room folder is reachable as 65535',
    );
    for (const body of [
      { name: 'One more', center },
      { name: 'One more', folder_id: MARKER - 1 },
    ]) {
      const r = await s.post('/folder/add', body);
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
      assert.equal(r.body.error, 'conflict', 'refused as exhausted');
      assert.match(r.body.message, /no more room folders can be created \(at most 65535\)/, 'the message says why');
    }
    assert.equal(await rowCount(s, 'room_folders'), 1, 'no row written');
  }));

test('parseFolderId reads by arithmetic and range, so no id wraps onto another folder', () => {
  assert.deepEqual(parseFolderId(1, 'id'), { kind: 'room', id: 1 }, 'first room folder');
  assert.deepEqual(parseFolderId(MARKER - 1, 'id'), { kind: 'room', id: MARKER - 1 }, 'last room folder');
  assert.deepEqual(parseFolderId(MARKER + 1, 'id'), { kind: 'computer', id: 1 }, 'first computer folder');
  assert.deepEqual(parseFolderId(2 * MARKER - 1, 'id'), { kind: 'computer', id: MARKER - 1 }, 'last computer folder');
  for (const id of [0, -1, MARKER, 2 * MARKER, 0x30001, 2 ** 32 + MARKER + 1, 2 ** 32 + 1, 2 ** 53 + 2, 1.5, Number.NaN]) {
    assert.throws(
      () => parseFolderId(id, 'folder_id'),
      (e: any) => e.status === 400 && e.field === 'folder_id',
      `${id} refused`,
    );
  }
});

/**
 * A folder row with table id 65535, so the next one gets 65536. Inserted with an explicit
 * id, which moves the counter on SQLite and MariaDB; PostgreSQL's sequence is moved by hand.
 */
async function insertLastFolderRow(s: TestServer, table: string, ownerColumn: string, owner: number): Promise<void> {
  await s.app.database.transactional((em) =>
    execute(em, `insert into ${table} (id, name, ${ownerColumn}) values (?, ?, ?)`, [MARKER - 1, 'Last', owner]),
  );
  if (s.app.database.type === 'postgresql')
    await s.app.database.query(`select setval(pg_get_serial_sequence('${table}', 'id'), ${MARKER - 1})`);
}

async function rowCount(s: TestServer, table: string): Promise<number> {
  return Number((await s.app.database.query<{ n: number }>(`select count(*) as n from ${table}`))[0]!.n);
}

function macOf(n: number): string {
  return `02:00:00:00:00:${n.toString(16).padStart(2, '0')}`;
}

test.run();
