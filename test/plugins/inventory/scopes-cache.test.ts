import assert from 'node:assert/strict';
import { test } from 'uvu';
import { execute } from '../../../core/database';
import type { ScopeNode } from '../../../plugins/inventory/scopes';
import { addCenter, addClient, addRoom } from '../../support/fixtures';
import { withServer, type TestServer } from '../../support/server';

/** Every computer of GET /scopes as `name@ip in <parent name>`, sorted. */
async function computers(s: TestServer): Promise<string[]> {
  const r = await s.get('/scopes');
  assert.equal(r.status, 200, r.text);
  const found: string[] = [];
  const walk = (nodes: ScopeNode[], parent: string) => {
    for (const n of nodes) {
      if (n.type === 'computer') found.push(`${n.name}@${n.ip} in ${parent}`);
      walk(n.scope, n.name);
    }
  };
  walk(r.body.scope, '');
  return found.sort();
}

test('GET /scopes answers exactly after every write through the server, however often it is polled', () =>
  withServer(
    async (s) => {
      const center = await addCenter(s, 'C');
      const room = await addRoom(s, center, 'R');
      const other = await addRoom(s, center, 'Other');
      const a = await addClient(s, room, '10.0.0.1', '020000000001', { name: 'a' });
      assert.deepEqual(await computers(s), ['a@10.0.0.1 in R']);
      await addClient(s, room, '10.0.0.2', '020000000002', { name: 'b' });
      assert.deepEqual(await computers(s), ['a@10.0.0.1 in R', 'b@10.0.0.2 in R'], 'added');
      await s.post('/client/update', { id: a, name: 'a2', ip: '10.0.0.9' });
      assert.deepEqual(await computers(s), ['a2@10.0.0.9 in R', 'b@10.0.0.2 in R'], 'renamed and readdressed');
      const folder = (await s.post('/folder/add', { name: 'Row', room: other })).body.id;
      assert.equal((await s.post('/client/move', { clients: ['10.0.0.2'], room: other, folder_id: folder })).status, 200);
      assert.deepEqual(await computers(s), ['a2@10.0.0.9 in R', 'b@10.0.0.2 in Row'], 'moved into a folder of another room');
      await s.post('/room/update', { id: room, name: 'R2', center, netmask: '255.255.255.0' });
      assert.deepEqual(await computers(s), ['a2@10.0.0.9 in R2', 'b@10.0.0.2 in Row'], 'room renamed');
      await s.post('/client/delete', { clients: ['10.0.0.9'] });
      assert.deepEqual(await computers(s), ['b@10.0.0.2 in Row'], 'deleted');
    },
    { config: { inventory: { scopes_cache_ms: 60_000 } } },
  ));

test("another process's writes show once inventory.scopes_cache_ms passed, a local write in between or not", () =>
  withServer(
    async (s) => {
      const center = await addCenter(s, 'C');
      const room = await addRoom(s, center, 'R');
      await addClient(s, room, '10.0.0.1', '020000000001', { name: 'a' });
      assert.deepEqual(await computers(s), ['a@10.0.0.1 in R']);
      // Written around this server, as another process on the same database would.
      await s.app.database.transactional((em) =>
        execute(em, 'insert into clients (name, ip, mac, room_id) values (?, ?, ?, ?)', ['outside', '10.0.0.5', '020000000005', room]),
      );
      // A write through this server: the tree is built again at once, with its change.
      await addClient(s, room, '10.0.0.2', '020000000002', { name: 'b' });
      assert.ok((await computers(s)).includes('b@10.0.0.2 in R'), 'the local write shows at once');
      await new Promise((resolve) => setTimeout(resolve, 400));
      assert.deepEqual(
        await computers(s),
        ['a@10.0.0.1 in R', 'b@10.0.0.2 in R', 'outside@10.0.0.5 in R'],
        'and the outside one after the age',
      );
    },
    { config: { inventory: { scopes_cache_ms: 300 } } },
  ));

test.run();
