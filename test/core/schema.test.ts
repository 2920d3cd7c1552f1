import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'uvu';
import { makeTestDir, removeTestStore, startServer } from '../support/server';

type NotesVersion = 'v1' | 'v2' | 'v3' | 'broken' | 'seeded' | 'seed-fails';
const notes = (version: NotesVersion) => path.join(__dirname, '..', 'fixtures', 'notes', `${version}.js`);
const withNotes = (version: NotesVersion) => ({ config: { plugins: ['inventory', notes(version)] } });

test('a fresh database gets the current tables and records each plugin at its latest version', async () => {
  const s = await startServer(withNotes('v2'));
  try {
    const r = await s.get('/version');
    assert.equal(r.status, 200, `GET /version: ${r.text}`);
    assert.deepEqual(r.body.schema, { inventory: 1, notes: 2 }, 'both plugins recorded at their current version');
    assert.equal(typeof r.body.version, 'string', 'the release is shown');
    assert.equal(r.body.database, process.env.OGSERVE_TEST_DB ?? 'sqlite', 'the engine is shown');
    const list = await s.get('/notes');
    assert.deepEqual(list.body, { notes: [] }, 'the v2 table (with its new column) exists and is empty');
  } finally {
    await s.close();
  }
});

test('an older recorded version is upgraded by the plugin migrations, data kept', async () => {
  const dir = makeTestDir();
  try {
    const old = await startServer({ dir, ...withNotes('v1') });
    try {
      for (const body of ['abc', 'hello world']) assert.equal((await old.post('/notes', { body })).status, 200, 'v1 stores a note');
      assert.deepEqual((await old.get('/version')).body.schema.notes, 1, 'v1 recorded');
    } finally {
      await old.close();
    }
    const upgraded = await startServer({ dir, ...withNotes('v2') });
    try {
      assert.deepEqual((await upgraded.get('/version')).body.schema, { inventory: 1, notes: 2 }, 'notes now at version 2');
      assert.deepEqual(
        (await upgraded.get('/notes')).body.notes,
        [
          { body: 'abc', chars: 3 },
          { body: 'hello world', chars: 11 },
        ],
        'the migration filled the new column of the existing notes',
      );
      assert.ok(
        upgraded.logs.some((l) => l.msg === 'migrating database schema' && l.version === 2),
        'the migration step is logged',
      );
    } finally {
      await upgraded.close();
    }
    const again = await startServer({ dir, ...withNotes('v2') });
    try {
      assert.ok(!again.logs.some((l) => l.msg === 'migrating database schema'), 'a second start runs no migration');
    } finally {
      await again.close();
    }
  } finally {
    await removeTestStore(dir);
  }
});

test('an upgrade across two versions runs the step it has and creates the table the next adds', async () => {
  const dir = makeTestDir();
  try {
    const old = await startServer({ dir, ...withNotes('v1') });
    try {
      assert.equal((await old.post('/notes', { body: 'four' })).status, 200, 'v1 stores a note');
    } finally {
      await old.close();
    }
    const upgraded = await startServer({ dir, ...withNotes('v3') });
    try {
      assert.equal((await upgraded.get('/version')).body.schema.notes, 3, 'notes now at version 3');
      assert.deepEqual((await upgraded.get('/notes')).body.notes, [{ body: 'four', chars: 4 }], 'the version 2 step ran');
      const tag = await upgraded.post('/tags');
      assert.equal(tag.status, 200, `the version 3 table exists: ${tag.text}`);
    } finally {
      await upgraded.close();
    }
  } finally {
    await removeTestStore(dir);
  }
});

test('a schema newer than this ogserve knows is refused with a clear message', async () => {
  const dir = makeTestDir();
  try {
    await (await startServer({ dir, ...withNotes('v2') })).close();
    await assert.rejects(
      startServer({ dir, ...withNotes('v1') }),
      (error: Error) => {
        assert.match(
          error.message,
          /schema of plugin 'notes' is version 2, newer than this ogserve knows \(1\)/,
          `message: ${error.message}`,
        );
        return true;
      },
      'startup refuses the newer schema',
    );
  } finally {
    await removeTestStore(dir);
  }
});

test('a failing migration stops startup and leaves the database at the old version', async () => {
  const dir = makeTestDir();
  try {
    const old = await startServer({ dir, ...withNotes('v1') });
    try {
      assert.equal((await old.post('/notes', { body: 'kept' })).status, 200, 'v1 stores a note');
    } finally {
      await old.close();
    }
    await assert.rejects(
      startServer({ dir, ...withNotes('broken') }),
      /migrating the schema of plugin 'notes' to version 2 failed/,
      'startup fails naming the step',
    );
    const back = await startServer({ dir, ...withNotes('v1') });
    try {
      assert.equal((await back.get('/version')).body.schema.notes, 1, 'still version 1');
      const rows = await back.app.database.query<{ body: string }>('select body from notes');
      assert.deepEqual(
        rows.map((r) => r.body),
        ['kept'],
        'the failed step changed nothing',
      );
    } finally {
      await back.close();
    }
  } finally {
    await removeTestStore(dir);
  }
});

test("a plugin's seed rows are written once, when its tables are created, with its version record", async () => {
  const dir = makeTestDir();
  try {
    await assert.rejects(
      startServer({ dir, ...withNotes('seed-fails') }),
      (error: Error) => {
        assert.equal(
          error.message,
          "database: the first rows of plugin 'notes' could not be written; the next start tries again: the seed broke",
        );
        return true;
      },
      'a failing seed stops the start',
    );
    const first = await startServer({ dir, ...withNotes('seeded') });
    try {
      const rows = await first.app.database.query<{ body: string }>('select body from notes');
      assert.deepEqual(
        rows.map((r) => r.body),
        ['welcome to 127.0.0.1'],
        'seeded once with core settings; nothing of the failed seed stayed, and the version was not recorded without it',
      );
      await first.app.database.query('delete from notes');
    } finally {
      await first.close();
    }
    const again = await startServer({ dir, ...withNotes('seeded') });
    try {
      assert.deepEqual(await again.app.database.query('select body from notes'), [], 'a restart does not seed again');
    } finally {
      await again.close();
    }
  } finally {
    await removeTestStore(dir);
  }
});

test('migrations must lead to the declared version in increasing order', async () => {
  const bad = path.join(__dirname, '..', 'fixtures', 'notes', 'unordered.js');
  await assert.rejects(
    startServer({ config: { plugins: ['inventory', bad] } }),
    /migration version 3 must be an integer from 2 to its schemaVersion 2/,
    'a step beyond the version is refused',
  );
});

test('GET /version needs the API key', async () => {
  const s = await startServer();
  try {
    const r = await s.request('GET', '/version', undefined, { Authorization: 'wrong' });
    assert.equal(r.status, 401, 'refused without the key');
  } finally {
    await s.close();
  }
});

test.run();
