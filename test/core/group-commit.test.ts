import assert from 'node:assert/strict';
import { test } from 'uvu';
import { execute } from '../../core/database';
import { GroupCommit } from '../../core/group-commit';
import { startServer } from '../support/server';

/**
 * Core's write-behind seam (issue 52): items that come while a batch is written wait for the
 * next, each batch one transaction; a failed batch is written again item by item, and what
 * waits for the commit never runs for a rolled-back write. Run on every engine.
 */
test('group commit: a burst is written in few transactions, a bad item fails alone, after-commit work only for what landed', async () => {
  const s = await startServer();
  try {
    const db = s.app.database;
    await db.query('create table gc_probe (id integer primary key, note varchar(20) not null)');
    const batches: number[][] = [];
    const told: number[] = [];
    const commits = new GroupCommit<number, string>(
      db,
      async (em, ids) => {
        batches.push(ids);
        for (const id of ids) {
          // A negative id stands for an item its database refuses (a PC deleted meanwhile).
          if (id < 0) throw new Error(`item ${id} refused`);
          await execute(em, 'insert into gc_probe (id, note) values (?, ?)', [id, `n${id}`]);
          db.afterCommit(em, () => told.push(id));
        }
        return ids.map((id) => `wrote ${id}`);
      },
      3,
    );

    assert.equal(await commits.add(1), 'wrote 1', 'a lone item is written at once');
    const burst = await Promise.allSettled([2, 3, 4, 5, -6, 7, 8].map((id) => commits.add(id)));
    assert.deepEqual(
      burst.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
      ['wrote 2', 'wrote 3', 'wrote 4', 'wrote 5', 'item -6 refused', 'wrote 7', 'wrote 8'],
      'each item hears its own answer or its own error',
    );
    assert.deepEqual(batches.slice(0, 3), [[1], [2, 3, 4], [5, -6, 7]], 'items that came meanwhile went in batches of at most 3');
    assert.deepEqual(batches.slice(3, 6), [[5], [-6], [7]], 'the failed batch written again item by item');
    assert.deepEqual(batches.slice(6), [[8]]);
    const rows = await db.query<{ id: number }>('select id from gc_probe order by id');
    assert.deepEqual(
      rows.map((r) => Number(r.id)),
      [1, 2, 3, 4, 5, 7, 8],
    );
    assert.deepEqual(
      [...told].sort((a, b) => a - b),
      [1, 2, 3, 4, 5, 7, 8],
      'after-commit work ran once for each written item, never for the rolled-back batch',
    );
  } finally {
    await s.close();
  }
});

test.run();
