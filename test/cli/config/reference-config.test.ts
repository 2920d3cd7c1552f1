import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { Config } from '../../../cli/config';
import { runNode } from '../../support/process';
import { makeTestDir, removeTestStore, send } from '../../support/server';
import { testDatabaseSection, testEngine } from '../../support/test-db';

/**
 * A site's own ogserver.json means what it meant to the reference: its `database` section
 * has `ip`, `port`, `name`, `user`, `pass` and no `type`, and the reference's only engine is
 * MySQL/MariaDB. It must not fall back to an empty SQLite file.
 */

const mainJs = path.resolve(__dirname, '../../../cli/main.js');

/** The shape of the reference's cfg/ogserver.json (string ports, no database type). */
function referenceFile(dir: string, database: { ip: string; port: string; name: string; user: string; pass: string }): string {
  const file = path.join(dir, 'ogserver.json');
  writeFileSync(
    file,
    JSON.stringify({
      rest: { ip: '127.0.0.1', port: '0', api_token: '5a5ca1172136299640a9f47469237e0a' },
      database,
      wol: { interface: 'lo' },
      repository: { directory: path.join(dir, 'images') },
    }),
  );
  return file;
}

function configOf(database: Record<string, unknown>): Config | string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-reference-'));
  try {
    const file = path.join(dir, 'ogserver.json');
    writeFileSync(file, JSON.stringify({ database }));
    return new Config(file, {}, { env: {} });
  } catch (error) {
    return (error as Error).message;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the reference database keys without a type mean MySQL/MariaDB', () => {
  const config = configOf({ ip: '127.0.0.1', port: '3306', name: 'opengnsys', user: 'mysql', pass: 'mysql' }) as Config;
  assert.equal(config.core.database.type, 'mariadb', 'not SQLite');
  assert.equal(config.databaseTypeInferred, true, 'said in the start log');
  assert.equal(config.core.database.port, 3306, 'the string port');
  assert.equal((configOf({ name: 'og' }) as Config).core.database.type, 'mariadb', 'any of the keys');
  const sqlite = configOf({ path: 'og.sqlite' }) as Config;
  assert.deepEqual([sqlite.core.database.type, sqlite.databaseTypeInferred], ['sqlite', false], 'a path alone is SQLite');
  const explicit = configOf({ type: 'postgresql', ip: '10.0.0.1' }) as Config;
  assert.deepEqual([explicit.core.database.type, explicit.databaseTypeInferred], ['postgresql', false], 'a type given wins');
  assert.equal(
    configOf({ path: 'og.sqlite', ip: '10.0.0.1', user: 'og' }),
    'config: database.type: is required when the section sets both path (SQLite) and ip, user (a database server): one of sqlite, mariadb, mysql, postgresql',
    'both kinds of keys: the type must be said',
  );
});

// The test user may only create `ogt_*` databases on the CI's MariaDB: this runs with the suite on that engine.
if (testEngine === 'mariadb' || testEngine === 'mysql') {
  test("the reference's own ogserver.json starts on MariaDB, and the start log says so", async () => {
    const dir = makeTestDir();
    try {
      const section = testDatabaseSection(dir, testEngine) as { ip: string; port: number; name: string; user: string; pass: string };
      const file = referenceFile(dir, {
        ip: section.ip,
        port: String(section.port),
        name: section.name,
        user: section.user,
        pass: section.pass,
      });
      // The reference file has no agents section: keep this test's agent interface on loopback and a free port.
      const env = { ...process.env, OGSERVE_AGENTS__IP: '127.0.0.1', OGSERVE_AGENTS__PORT: '0', OGSERVE_STATE_DIR: dir };
      const run = runNode(mainJs, ['--config', file], { env });
      try {
        const port = Number((await run.waitFor(/REST interface listening on 127\.0\.0\.1:(\d+)/))[1]);
        const key = { Authorization: '5a5ca1172136299640a9f47469237e0a' };
        assert.equal((await send(port, 'GET', '/version', undefined, key)).body?.database, 'mariadb', 'GET /version');
        assert.ok(
          run.lines.some((l) =>
            l.includes(
              `database: mariadb (no database.type: the reference's database keys mean MySQL/MariaDB) database '${section.name}' on ${section.ip}:${section.port} as '${section.user}'`,
            ),
          ),
          `the start log names the database: ${run.lines.join('\n')}`,
        );
        const repositories = await send(port, 'GET', '/repositories', undefined, key);
        assert.deepEqual(repositories.body?.repositories?.[0]?.name, 'Default', 'the tables were created on MariaDB');
      } finally {
        await run.kill();
      }
    } finally {
      await removeTestStore(dir, testEngine);
    }
  });
}

test.run();
