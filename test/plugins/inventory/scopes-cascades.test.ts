import assert from 'node:assert/strict';
import { test } from 'uvu';
import { Inventory } from '../../../plugins/inventory';
import { addCenter, addClient, addRoom } from '../../support/fixtures';
import { withServer, type TestServer } from '../../support/server';

async function count(s: TestServer, table: string): Promise<number> {
  const rows = await s.app.database.query<{ n: number }>(`select count(*) as n from ${table}`);
  return Number(rows[0]!.n);
}

test('GET /scopes: centers > rooms > computers, every node with a scope list, computers with ip', () =>
  withServer(async (s) => {
    const center = await addCenter(s, 'C');
    const room = await addRoom(s, center, 'R');
    const pc = await addClient(s, room, '10.0.0.1', '02:00:00:00:00:01', { name: 'pc' });
    const r = await s.get('/scopes');
    assert.deepEqual(
      r.body,
      {
        scope: [
          {
            name: 'C',
            type: 'center',
            id: center,
            scope: [{ name: 'R', type: 'room', id: room, scope: [{ name: 'pc', type: 'computer', id: pc, scope: [], ip: '10.0.0.1' }] }],
          },
        ],
      },
      'tree',
    );
  }));

test('GET /scopes reflects every write at once, though it is served from memory between writes', () =>
  withServer(async (s) => {
    const center = await addCenter(s, 'C');
    const room = await addRoom(s, center, 'R');
    const first = (await s.get('/scopes')).body;
    assert.equal(first.scope[0].scope[0].scope.length, 0, 'no computer yet');
    await addClient(s, room, '10.0.0.1', '02:00:00:00:00:01', { name: 'pc' });
    assert.equal((await s.get('/scopes')).body.scope[0].scope[0].scope[0].ip, '10.0.0.1', 'added client shows');
    await s.post('/client/update', { id: 1, name: 'renamed' });
    assert.equal((await s.get('/scopes')).body.scope[0].scope[0].scope[0].name, 'renamed', 'rename shows');
    await s.post('/room/delete', { id: room });
    assert.deepEqual((await s.get('/scopes')).body.scope[0].scope, [], 'deleted room gone');
  }));

test('deleting a center removes its rooms, folders, clients and partitions in cascade, not images nor other centers', () =>
  withServer(async (s) => {
    const a = await addCenter(s, 'A');
    const b = await addCenter(s, 'B');
    const roomA = await addRoom(s, a, 'RA');
    const roomB = await addRoom(s, b, 'RB');
    await s.post('/folder/add', { name: 'F', center: a });
    await s.post('/folder/add', { name: 'G', room: roomA });
    const inventory = s.app.container.resolve(Inventory);
    for (let i = 1; i <= 20; i++) {
      const id = await addClient(s, roomA, `10.0.0.${i}`, `02:00:00:00:00:${i.toString(16).padStart(2, '0')}`);
      await inventory.storeDiskSetup(id, [{ disk: 1, partition: 1, code: 7, size: 100n, filesystem: 'NTFS', os: '' }]);
    }
    const kept = await addClient(s, roomB, '10.1.0.1', '02:00:00:00:01:01');
    await inventory.storeDiskSetup(kept, [{ disk: 1, partition: 1, code: 7, size: 100n, filesystem: 'NTFS', os: '' }]);
    const removed: string[] = [];
    s.app.events.on('test', 'client.removed', (c) => void removed.push(c.ip));
    assert.equal((await s.post('/center/delete', { id: String(a) })).status, 200, 'delete');
    assert.equal(await count(s, 'rooms'), 1, 'rooms of A gone');
    assert.equal(await count(s, 'room_folders'), 0, 'room folders gone');
    assert.equal(await count(s, 'computer_folders'), 0, 'computer folders gone');
    assert.equal(await count(s, 'clients'), 1, 'clients of A gone');
    assert.equal(await count(s, 'partitions'), 1, 'partitions of A gone');
    assert.equal(removed.length, 20, 'removed hook fired for every client');
  }));

test('deleting a room removes its clients and partitions only', () =>
  withServer(async (s) => {
    const center = await addCenter(s);
    const r1 = await addRoom(s, center, 'R1');
    const r2 = await addRoom(s, center, 'R2');
    const inventory = s.app.container.resolve(Inventory);
    const gone = await addClient(s, r1, '10.0.0.1', '02:00:00:00:00:01');
    await inventory.storeDiskSetup(gone, [{ disk: 1, partition: 0, code: 1, size: 1n, filesystem: '', os: '' }]);
    await addClient(s, r2, '10.0.0.2', '02:00:00:00:00:02');
    await s.post('/room/delete', { id: r1 });
    assert.equal(await count(s, 'clients'), 1, 'one client left');
    assert.equal(await count(s, 'partitions'), 0, 'its partitions gone');
    assert.equal(await count(s, 'centers'), 1, 'center kept');
  }));

test.run();
