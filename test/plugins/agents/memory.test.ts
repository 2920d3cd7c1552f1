// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { AgentLink } from '../../../plugins/agents';
import { Inventory } from '../../../plugins/inventory';
import { bulkInsert } from '../../support/bulk';
import { eventually } from '../../support/fake-agent';
import { addCenter, addRoom, macFor } from '../../support/fixtures';
import { addresses } from '../../support/lab';
import { startServer } from '../../support/server';
import { forkSwarm } from '../../support/swarm';

test('once a thousand agents left and the link went quiet, their memory is collected', async () => {
  const s = await startServer();
  try {
    const room = await addRoom(s, await addCenter(s), 'Lab', '255.0.0.0');
    const ips = [1, 2, 3, 4].flatMap((n) => addresses(`127.0.${40 + n}`, 250));
    await bulkInsert(
      s.app.database,
      'clients',
      ['name', 'ip', 'mac', 'room_id'],
      ips.map((ip, i) => [`pc-${i}`, ip, macFor(i + 1), room]),
    );
    s.app.container.resolve(Inventory).tablesChanged();
    const collected = () => s.logs.filter((l) => /agent connections closed: memory collected in \d+ ms/.test(l.msg));
    const swarm = await forkSwarm(s.app.container.resolve(AgentLink).port(), ips);
    assert.equal(swarm.connected, ips.length, 'every agent connected');
    await eventually(async () => (await s.get('/clients')).body.clients.length === ips.length, 'every agent listed', 20_000);
    assert.equal(collected().length, 0, 'nothing collected while they are connected');
    swarm.stop();
    await eventually(async () => (await s.get('/clients')).body.clients.length === 0, 'every agent gone', 20_000);
    await eventually(async () => collected().length > 0, 'a collection once quiet', 15_000);
    const [line] = collected();
    assert.equal(line!.deaths, ips.length, 'every closed connection counted');
    assert.equal(typeof line!.heapAfterMiB, 'number', 'the heap after it is logged');
  } finally {
    await s.close();
  }
});

test.run();
