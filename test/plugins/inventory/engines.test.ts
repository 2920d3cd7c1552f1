import assert from 'node:assert/strict';
import { test } from 'uvu';
import { Inventory } from '../../../plugins/inventory';
import { addCenter, addClient, addRoom, macFor } from '../../support/fixtures';
import { startServer } from '../../support/server';

/**
 * The places where SQLite, MariaDB and PostgreSQL differ, exercised through the REST
 * interface. The suite runs once per engine (OGSERVE_TEST_DB), so each rule holds on all three.
 */

test('booleans read back as booleans, not 0/1 or t/f', async () => {
  const s = await startServer();
  try {
    const room = await addRoom(s, await addCenter(s), 'R', '255.255.255.0', { remote: true });
    await addClient(s, room, '10.0.0.1', macFor(1), { remote: true, maintenance: false });
    const info = await s.get('/client/info', { client: ['10.0.0.1'] });
    assert.equal(info.body.remote, true, 'client remote true');
    assert.equal(info.body.maintenance, false, 'client maintenance false');
    assert.equal((await s.get('/room/info', { id: room })).body.remote, true, 'room remote true');
    assert.equal((await s.post('/client/update', { id: info.body.id, maintenance: true, remote: false })).status, 200, 'update booleans');
    const after = await s.get('/client/info', { client: ['10.0.0.1'] });
    assert.deepEqual([after.body.remote, after.body.maintenance], [false, true], 'updated booleans read back');
    const view = await s.app.container.resolve(Inventory).clientByIp('10.0.0.1');
    assert.deepEqual([view?.remote, view?.maintenance, view?.room.id], [false, true, room], 'the service sees the same values');
  } finally {
    await s.close();
  }
});

test('64-bit partition sizes survive beyond 2^53', async () => {
  const s = await startServer();
  try {
    const room = await addRoom(s, await addCenter(s));
    const id = await addClient(s, room, '10.0.0.2', macFor(2));
    const huge = 2n ** 62n + 12345n;
    await s.app.container.resolve(Inventory).storeDiskSetup(id, [
      { disk: 1, partition: 0, code: 2, size: huge, filesystem: '', os: '' },
      { disk: 1, partition: 1, code: 7, size: huge - 1n, usedSize: 2n ** 53n + 1n, freeSize: 1n, filesystem: 'NTFS', os: 'Windows' },
    ]);
    const r = await s.get('/client/setup', { client: ['10.0.0.2'] });
    assert.equal(r.status, 200, `client/setup: ${r.text}`);
    assert.match(r.text, new RegExp(`"size":${huge}[,}]`), 'disk size exact in the JSON text');
    assert.match(r.text, new RegExp(`"used_size":${2n ** 53n + 1n}[,}]`), 'used size exact');
    const stored = await s.app.container.resolve(Inventory).diskSetup(id);
    assert.deepEqual(
      stored.map((p) => p.size),
      [huge, huge - 1n],
      'the service reads exact bigints',
    );
  } finally {
    await s.close();
  }
});

test('names compare case-sensitively on every engine', async () => {
  const s = await startServer();
  try {
    await addCenter(s, 'Lab');
    const r = await s.post('/center/add', { name: 'lab' });
    assert.equal(r.status, 200, `a center differing only in case is another center: ${r.text}`);
    const again = await s.post('/center/add', { name: 'Lab' });
    assert.equal(again.status, 400, 'the exact name is a duplicate');
    assert.equal(again.body.error, 'duplicate', 'error code duplicate');
  } finally {
    await s.close();
  }
});

test('a race on one IP ends with one client and duplicate errors, never a 500', async () => {
  const s = await startServer();
  try {
    const room = await addRoom(s, await addCenter(s));
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) => s.post('/client/add', { name: `pc${i}`, ip: '10.0.0.9', mac: macFor(100 + i), room })),
    );
    const statuses = replies.map((r) => r.status).sort();
    assert.equal(statuses.filter((c) => c === 200).length, 1, `exactly one add wins: ${statuses}`);
    for (const r of replies.filter((x) => x.status !== 200)) {
      assert.equal(r.status, 400, `the losers get 400: ${r.text}`);
      assert.equal(r.body.error, 'duplicate', `error code duplicate: ${r.text}`);
    }
  } finally {
    await s.close();
  }
});

test('deleting a folder removes its sub-folders and their clients (recursive query)', async () => {
  const s = await startServer();
  try {
    const room = await addRoom(s, await addCenter(s));
    const top = (await s.post('/folder/add', { name: 'top', room })).body.id;
    const sub = (await s.post('/folder/add', { name: 'sub', folder_id: top })).body.id;
    const subsub = (await s.post('/folder/add', { name: 'subsub', folder_id: sub })).body.id;
    await addClient(s, room, '10.0.1.1', macFor(11), { folder_id: subsub });
    await addClient(s, room, '10.0.1.2', macFor(12));
    const removed: string[] = [];
    s.app.events.on('test', 'client.removed', (c) => void removed.push(c.ip));
    assert.equal((await s.post('/folder/delete', { id: top })).status, 200, 'folder/delete');
    assert.deepEqual(removed, ['10.0.1.1'], 'the removed hook saw the nested client');
    assert.equal((await s.get('/client/info', { client: ['10.0.1.1'] })).status, 400, 'the nested client is gone');
    assert.equal((await s.get('/client/info', { client: ['10.0.1.2'] })).status, 200, 'the room client stays');
    const rows = await s.app.database.query<{ n: number }>('select count(*) as n from computer_folders');
    assert.equal(Number(rows[0]!.n), 0, 'every sub-folder is gone');
  } finally {
    await s.close();
  }
});

test('deleting a center cascades to rooms, folders, clients and partitions', async () => {
  const s = await startServer();
  try {
    const center = await addCenter(s, 'Gone');
    const keep = await addRoom(s, await addCenter(s, 'Kept'));
    const room = await addRoom(s, center);
    await s.post('/folder/add', { name: 'f', center });
    const id = await addClient(s, room, '10.0.2.1', macFor(21));
    await addClient(s, keep, '10.0.2.2', macFor(22));
    await s.app.container.resolve(Inventory).storeDiskSetup(id, [{ disk: 1, partition: 0, code: 0, size: 10n, filesystem: '', os: '' }]);
    assert.equal((await s.post('/center/delete', { id: center })).status, 200, 'center/delete');
    const count = async (table: string) => Number((await s.app.database.query<{ n: number }>(`select count(*) as n from ${table}`))[0]!.n);
    assert.deepEqual(
      [await count('centers'), await count('rooms'), await count('room_folders'), await count('clients'), await count('partitions')],
      [1, 1, 0, 1, 0],
      'only the other center and its room and client remain',
    );
    const scopes = await s.get('/scopes');
    assert.equal(scopes.status, 200, 'GET /scopes');
    assert.deepEqual(
      scopes.body.scope.map((c: { name: string }) => c.name),
      ['Kept'],
      'the tree lists the remaining center',
    );
  } finally {
    await s.close();
  }
});

test('a restarted server finds its tables as the entities describe them (no schema drift)', async () => {
  const s = await startServer();
  try {
    const pending = await s.app.database.orm.schema.getUpdateSchemaSQL({ safe: true, wrap: false });
    assert.equal(pending.trim(), '', `the schema generator wants no change after creating the tables:\n${pending}`);
  } finally {
    await s.close();
  }
});

test.run();
