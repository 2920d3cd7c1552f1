import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'uvu';
import { bulkInsert, ipFor } from '../../support/bulk';
import { macFor } from '../../support/fixtures';
import { spawnServer } from '../../support/child-server';
import { type ChildRun, runNode } from '../../support/process';
import { TOKEN, makeTestDir, removeTestStore, send, startServer } from '../../support/server';
import { connectSide, type SideConnection } from '../../support/test-db';

/**
 * Crash safety on the engine OGSERVE_TEST_DB selects: the real service process is killed
 * (SIGKILL) while a large transaction is open; after a restart every change must be there,
 * or none of it. The kill comes when a side connection sees an open transaction that has
 * written, so it lands in the middle of the work rather than before or after it.
 */

const clients = 3000;
const partitionsPerClient = 8;

async function killWhileWriting(run: ChildRun, side: SideConnection, finished: Promise<unknown>): Promise<boolean> {
  let done = false;
  void finished.then(
    () => (done = true),
    () => (done = true),
  );
  const deadline = Date.now() + 60_000;
  while (!done && Date.now() < deadline) {
    if (await side.writerActive()) break;
    await new Promise((resolve) => setTimeout(resolve, 1)); // let the request go out
  }
  const midway = !done;
  await run.kill();
  return midway;
}

async function count(side: SideConnection, sql: string, params: unknown[] = []): Promise<number> {
  return Number((await side.query<{ n: number }>(sql, params))[0]!.n);
}

test('SIGKILL during a cascading center delete leaves all of it or none of it', async () => {
  const dir = makeTestDir();
  try {
    // Seed through a first start: the schema, then a center with thousands of clients in bulk.
    const seed = await startServer({ dir });
    try {
      const db = seed.app.database;
      await bulkInsert(
        db,
        'centers',
        ['id', 'name'],
        [
          [1, 'Big'],
          [2, 'Other'],
        ],
      );
      await bulkInsert(
        db,
        'rooms',
        ['id', 'name', 'center_id', 'netmask'],
        [
          [1, 'R1', 1, '255.0.0.0'],
          [2, 'R2', 2, '255.0.0.0'],
        ],
      );
      await bulkInsert(
        db,
        'clients',
        ['id', 'name', 'ip', 'mac', 'room_id'],
        Array.from({ length: clients }, (_, i) => [i + 1, `pc${i}`, ipFor(i + 1), macFor(i + 1), i === 0 ? 2 : 1]),
      );
      const partitions: unknown[][] = [];
      for (let c = 1; c <= clients; c++) for (let p = 0; p < partitionsPerClient; p++) partitions.push([c, 1, p, 1000]);
      await bulkInsert(db, 'partitions', ['client_id', 'disk', 'part_number', 'size'], partitions);
    } finally {
      await seed.close();
    }
    const server = await spawnServer({ dir });
    const side = await connectSide(dir);
    // On server engines the delete will wait on the last client's partitions, mid-transaction.
    const lock = await side.lockRows('select id from partitions where client_id = ?', [clients]);
    let killedMidway: boolean;
    try {
      const reply = send(server.port, 'POST', '/center/delete', { id: 1 }, { Authorization: TOKEN });
      killedMidway = await killWhileWriting(server, side, reply);
      await lock.release();
      await reply.catch(() => undefined); // the connection dies with the process
      assert.ok(killedMidway, 'the process was killed while its delete transaction was open');
    } finally {
      await server.kill();
      await lock.release();
    }
    try {
      const restarted = await spawnServer({ dir });
      await restarted.kill();
      const state = [
        await count(side, 'select count(*) as n from centers'),
        await count(side, 'select count(*) as n from rooms'),
        await count(side, 'select count(*) as n from clients'),
        await count(side, 'select count(*) as n from partitions'),
      ];
      const all = [2, 2, clients, clients * partitionsPerClient];
      const none = [1, 1, 1, partitionsPerClient];
      assert.ok(
        JSON.stringify(state) === JSON.stringify(all) || JSON.stringify(state) === JSON.stringify(none),
        `centers, rooms, clients, partitions after the crash: ${state} (expected ${all} or ${none}; killed mid-way: ${killedMidway})`,
      );
      assert.equal(
        await count(side, 'select count(*) as n from clients c left join rooms r on r.id = c.room_id where r.id is null'),
        0,
        'no client lost its room',
      );
      assert.equal(
        await count(side, 'select count(*) as n from partitions p left join clients c on c.id = p.client_id where c.id is null'),
        0,
        'no partition lost its client',
      );
    } finally {
      await side.close();
    }
  } finally {
    await removeTestStore(dir);
  }
});

test('SIGKILL while storing an agent disk report leaves the old report or the new one', async () => {
  const dir = makeTestDir();
  const oldCount = 4000;
  const newCount = 3000;
  try {
    const seed = await startServer({ dir });
    try {
      const db = seed.app.database;
      await bulkInsert(db, 'centers', ['id', 'name'], [[1, 'C']]);
      await bulkInsert(db, 'rooms', ['id', 'name', 'center_id', 'netmask'], [[1, 'R', 1, '255.0.0.0']]);
      await bulkInsert(db, 'clients', ['id', 'name', 'ip', 'mac', 'room_id'], [[1, 'pc', '10.0.0.1', macFor(1), 1]]);
      const old = Array.from({ length: oldCount }, (_, i) => [1, 1 + Math.floor(i / 100), i % 100, 1000]);
      await bulkInsert(db, 'partitions', ['client_id', 'disk', 'part_number', 'size'], old);
    } finally {
      await seed.close();
    }
    const side = await connectSide(dir);
    try {
      // On server engines the store will wait on the last partition it updates, mid-transaction.
      const lock = await side.lockRows('select id from partitions where disk = ? and part_number = ?', [30, 99]);
      const store = runNode(path.join(__dirname, '..', '..', 'support', 'store-disks-child.js'), [
        path.join(dir, 'config.json'),
        '1',
        String(newCount),
        '2000',
      ]);
      let killedMidway: boolean;
      try {
        await store.waitFor(/^storing$/);
        killedMidway = await killWhileWriting(store, side, store.waitFor(/^stored$/, 120_000));
        assert.ok(killedMidway, 'the process was killed while its store transaction was open');
      } finally {
        await store.kill();
        await lock.release();
      }
      const restarted = await spawnServer({ dir });
      await restarted.kill();
      const rows = await side.query<{ size: string; n: number }>(
        `select ${sizeText()} as size, count(*) as n from partitions group by size`,
      );
      const state = rows.map((r) => `${r.size}x${Number(r.n)}`).join(',');
      assert.ok(
        state === `1000x${oldCount}` || state === `2000x${newCount}`,
        `partition sizes after the crash: ${state} (killed mid-way: ${killedMidway})`,
      );
    } finally {
      await side.close();
    }
  } finally {
    await removeTestStore(dir);
  }
});

function sizeText(): string {
  const engine = process.env.OGSERVE_TEST_DB ?? 'sqlite';
  return engine === 'mariadb' || engine === 'mysql' ? 'cast(size as char)' : 'cast(size as text)';
}

test.run();
