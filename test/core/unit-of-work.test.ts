import assert from 'node:assert/strict';
import { test } from 'uvu';
import { execute } from '../../core/database';
import { startServer } from '../support/server';

/**
 * One unit of work travels with the call (issue 53): a caller's EntityManager is the one a
 * service works in, and a transaction asked for inside an open one joins it, so what the
 * caller rolls back the callee's writes go with. Run on every engine: their transactions differ.
 */
test('db.unit hands back the caller’s EntityManager, and a fresh one of its own only when given none', async () => {
  const s = await startServer();
  try {
    const db = s.app.database;
    const mine = db.fork();
    assert.equal(db.unit(mine), mine, "the caller's own");
    const fresh = db.unit(undefined);
    assert.notEqual(fresh, mine);
    assert.notEqual(db.unit(undefined), fresh, 'each caller without one gets its own');
  } finally {
    await s.close();
  }
});

test('a transaction asked for inside an open one joins it: the caller’s rollback takes the inner write too, and after-commit work waits for the outer commit', async () => {
  const s = await startServer();
  try {
    const db = s.app.database;
    await db.query('create table uow_probe (id integer primary key, note varchar(20))');
    const notes = async () => (await db.query<{ note: string }>('select note from uow_probe order by id')).map((r) => r.note);
    await assert.rejects(
      db.transactional(async (outer) => {
        await execute(outer, 'insert into uow_probe (id, note) values (?, ?)', [1, 'outer']);
        await db.transactional(async (inner) => {
          assert.equal(inner, outer, 'the inner transaction is the outer one');
          await execute(inner, 'insert into uow_probe (id, note) values (?, ?)', [2, 'inner']);
        }, outer);
        throw new Error('the caller changes its mind');
      }),
      /changes its mind/,
    );
    assert.deepEqual(await notes(), [], 'neither write landed');

    const told: string[] = [];
    await db.transactional(async (outer) => {
      await db.transactional(async (inner) => {
        await execute(inner, 'insert into uow_probe (id, note) values (?, ?)', [3, 'joined']);
        db.afterCommit(inner, () => told.push('committed'));
      }, outer);
      assert.deepEqual(told, [], 'nothing is told before the outer transaction commits');
    });
    assert.deepEqual(told, ['committed'], 'told once, at the commit');
    assert.deepEqual(await notes(), ['joined']);

    // Given a unit of work in no transaction, it opens one there.
    const unit = db.fork();
    await db.transactional(async (em) => {
      assert.ok(em.isInTransaction());
      await execute(em, 'insert into uow_probe (id, note) values (?, ?)', [4, 'own']);
    }, unit);
    assert.equal(unit.isInTransaction(), false, 'the transaction ended with the call');
    assert.deepEqual(await notes(), ['joined', 'own']);
  } finally {
    await s.close();
  }
});

test.run();
