import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'uvu';
import { makeTestDir, removeTestStore, startServer } from '../support/server';
import { connectSide, dropTestDatabase, testDatabaseSection, testEngine } from '../support/test-db';

/** A loopback port nobody listens on. */
async function deadPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

for (const type of ['postgresql', 'mariadb'] as const) {
  test(`a ${type} server that does not answer stops startup with a message naming the engine`, async () => {
    const port = await deadPort();
    await assert.rejects(
      startServer({ config: { database: { type, ip: '127.0.0.1', port, name: 'ogserve', user: 'nobody', pass: 'x' } } }),
      (error: Error) => {
        assert.match(error.message, new RegExp(`^database: cannot open ${type} database: `), `message: ${error.message}`);
        return true;
      },
      'startup refused',
    );
  });
}

test('an unknown database.type is a config error naming the key', async () => {
  await assert.rejects(
    startServer({ config: { database: { type: 'oracle' } } }),
    /config: database\.type: /,
    'refused at config validation',
  );
});

test('a database port that is not a number is a config error', async () => {
  await assert.rejects(
    startServer({ config: { database: { type: 'postgresql', port: 'abc' } } }),
    /config: database\.port: /,
    'refused at config validation',
  );
});

/**
 * A database server's database is created on the first start of a state directory (a test
 * server's temp dir) or with database.create; after that a missing one is a mistake that
 * stops the start, never a new empty database. Run on the suite's server engine.
 */
if (testEngine !== 'sqlite') {
  const engine = testEngine;
  const nameOf = (dir: string) => (testDatabaseSection(dir) as { name: string }).name;

  /** Whether the server has a database called `name`, asked on a connection of the test's own. */
  async function exists(name: string): Promise<boolean> {
    const side = await connectSide('', true);
    try {
      const rows =
        engine === 'postgresql'
          ? await side.query('select 1 from pg_database where datname = ?', [name])
          : await side.query('select 1 from information_schema.schemata where schema_name = ?', [name]);
      return rows.length > 0;
    } finally {
      await side.close();
    }
  }

  async function drop(name: string): Promise<void> {
    const side = await connectSide('', true);
    try {
      await side.query(engine === 'postgresql' ? `drop database if exists "${name}" with (force)` : `drop database if exists \`${name}\``);
    } finally {
      await side.close();
    }
  }

  test(`${engine}: a state directory's first start creates its database and records it; a restart finds both`, async () => {
    const dir = makeTestDir();
    try {
      const first = await startServer({ dir });
      await first.close();
      const created = first.logs.find((l) => l.msg.startsWith('database: created'));
      assert.ok(created, 'the creation is logged');
      assert.match(
        created.msg,
        new RegExp(
          `^database: created ${engine} database '${nameOf(dir)}' on 127\\.0\\.0\\.1:\\d+ \\(the first start of the state directory `,
        ),
      );
      const record = JSON.parse(readFileSync(path.join(dir, 'database.json'), 'utf8'));
      assert.deepEqual([record.type, record.name], [engine, nameOf(dir)], 'the state directory records it');
      const again = await startServer({ dir });
      await again.close();
      assert.ok(!again.logs.some((l) => l.msg.startsWith('database: created')), 'nothing created on the restart');
    } finally {
      await removeTestStore(dir);
    }
  });

  test(`${engine}: a mistyped database name after the first start stops the start naming it, and creates nothing`, async () => {
    const dir = makeTestDir();
    const typo = `${nameOf(dir)}x`;
    try {
      await (await startServer({ dir })).close();
      await assert.rejects(startServer({ dir, config: { database: { name: typo } } }), (error: Error) => {
        assert.match(
          error.message,
          new RegExp(
            `^database: ${engine} database '${typo}' on 127\\.0\\.0\\.1:\\d+ does not exist; the state directory ${dir} runs on ${engine} database '${nameOf(dir)}' on 127\\.0\\.0\\.1:\\d+: check database\\.name \\(and ip, port\\), or set database\\.create: true to create '${typo}' empty$`,
          ),
        );
        return true;
      });
      assert.equal(await exists(typo), false, 'no empty database was made');
      const record = JSON.parse(readFileSync(path.join(dir, 'database.json'), 'utf8'));
      assert.equal(record.name, nameOf(dir), 'the record still names the database the directory runs on');
    } finally {
      await drop(typo);
      await removeTestStore(dir);
    }
  });

  test(`${engine}: database.create: true creates a missing database after the first start, and the record follows it`, async () => {
    const dir = makeTestDir();
    const other = `${nameOf(dir)}b`;
    try {
      await (await startServer({ dir })).close();
      const s = await startServer({ dir, config: { database: { name: other, create: true } } });
      await s.close();
      assert.ok(s.logs.some((l) => l.msg.includes(`database '${other}'`) && l.msg.endsWith('(database.create is true)')));
      assert.equal(await exists(other), true);
      assert.equal(JSON.parse(readFileSync(path.join(dir, 'database.json'), 'utf8')).name, other);
    } finally {
      await drop(other);
      await removeTestStore(dir);
    }
  });

  test(`${engine}: the recorded database gone (another server, a dropped database) stops the start saying it ran there`, async () => {
    const dir = makeTestDir();
    try {
      await (await startServer({ dir })).close();
      await dropTestDatabase(dir);
      await assert.rejects(
        startServer({ dir }),
        new RegExp(
          `^StartupError: database: ${engine} database '${nameOf(dir)}' on \\S+ does not exist, though the state directory ${dir} ran on it: `,
        ),
      );
      assert.equal(await exists(nameOf(dir)), false);
    } finally {
      await removeTestStore(dir);
    }
  });

  test(`${engine}: a state directory that never ran on a server (SQLite before) creates its server database on the first start there`, async () => {
    const dir = makeTestDir();
    try {
      await (await startServer({ dir, engine: 'sqlite' })).close();
      assert.ok(!existsSync(path.join(dir, 'database.json')), 'SQLite records nothing');
      await (await startServer({ dir })).close();
      assert.equal(await exists(nameOf(dir)), true);
    } finally {
      await removeTestStore(dir);
    }
  });
}

test.run();
