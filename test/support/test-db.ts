import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/core';

/**
 * The engine the suite runs on, chosen by OGSERVE_TEST_DB (sqlite by default). Server
 * engines are reached on loopback as the CI user `ogserve_test` (password `ogserve_test`,
 * allowed to create databases; .ci/run creates it); OGSERVE_TEST_DB_USER / _PASS / _PORT
 * override that for a developer's own server.
 */
export type TestEngine = 'sqlite' | 'mariadb' | 'mysql' | 'postgresql';

export const testEngine: TestEngine = parseEngine(process.env.OGSERVE_TEST_DB ?? 'sqlite');

function parseEngine(value: string): TestEngine {
  if (value === 'sqlite' || value === 'mariadb' || value === 'mysql' || value === 'postgresql') return value;
  throw new Error(`OGSERVE_TEST_DB must be sqlite, mariadb, mysql or postgresql, not '${value}'`);
}

const defaultPorts = { mariadb: 3306, mysql: 3306, postgresql: 5432 } as const;

/**
 * The `database` config section of a test server whose files live in `dir`. Server engines
 * get a database named after the temp dir, so a restart with the same dir finds its data.
 */
export function testDatabaseSection(dir: string): Record<string, unknown> {
  if (testEngine === 'sqlite') return { type: 'sqlite', path: path.join(dir, 'ogserve.sqlite') };
  return {
    type: testEngine,
    ip: '127.0.0.1',
    port: Number(process.env.OGSERVE_TEST_DB_PORT ?? defaultPorts[testEngine]),
    name: databaseNameFor(dir),
    user: process.env.OGSERVE_TEST_DB_USER ?? 'ogserve_test',
    pass: process.env.OGSERVE_TEST_DB_PASS ?? 'ogserve_test',
  };
}

/** `ogt_` and the temp dir's random suffix, lower-cased: a valid name on every engine. */
function databaseNameFor(dir: string): string {
  const suffix = path.basename(dir).replace(/[^A-Za-z0-9]/g, '').toLowerCase() || randomBytes(6).toString('hex');
  return `ogt_${suffix}`.slice(0, 60);
}

/** Drop the server-engine database that belongs to `dir` (nothing to do for SQLite). */
export async function dropTestDatabase(dir: string): Promise<void> {
  if (testEngine === 'sqlite') return;
  const section = testDatabaseSection(dir) as { name: string; ip: string; port: number; user: string; pass: string };
  const pkg = testEngine === 'postgresql' ? '@mikro-orm/postgresql' : `@mikro-orm/${testEngine}`;
  const driver = (await import(pkg)) as { MikroORM: typeof MikroORM };
  const orm = await driver.MikroORM.init({
    entities: [],
    discovery: { warnWhenNoEntities: false },
    dbName: testEngine === 'postgresql' ? 'postgres' : 'information_schema',
    host: section.ip,
    port: section.port,
    user: section.user,
    password: section.pass,
    allowGlobalContext: true,
  });
  try {
    const sql =
      testEngine === 'postgresql' ? `drop database if exists "${section.name}" with (force)` : `drop database if exists \`${section.name}\``;
    await orm.em.getConnection().execute(sql);
  } finally {
    await orm.close(true);
  }
}
