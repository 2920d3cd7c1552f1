import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/core';

/**
 * The engine the suite runs on, chosen by OGSERVE_TEST_DB (sqlite by default). Server
 * engines are reached on loopback as the CI user `ogserve_test` (password `ogserve_test`,
 * allowed to create databases; the suite runner makes it, test-users.ts, as .ci/run does);
 * OGSERVE_TEST_DB_USER / _PASS / _PORT override that for a developer's own server.
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
export function testDatabaseSection(dir: string, engine: TestEngine = testEngine): Record<string, unknown> {
  if (engine === 'sqlite') return { type: 'sqlite', path: path.join(dir, 'ogserve.sqlite') };
  return {
    type: engine,
    ip: '127.0.0.1',
    port: Number(process.env.OGSERVE_TEST_DB_PORT ?? defaultPorts[engine]),
    name: databaseNameFor(dir, engine),
    user: process.env.OGSERVE_TEST_DB_USER ?? 'ogserve_test',
    pass: process.env.OGSERVE_TEST_DB_PASS ?? 'ogserve_test',
  };
}

/** Server-engine databases this process named, by engine: the suite runner drops those left at the end. */
const named = new Map<TestEngine, Set<string>>();

/** `ogt_` and the temp dir's random suffix, lower-cased: a valid name on every engine. */
function databaseNameFor(dir: string, engine: TestEngine): string {
  const suffix =
    path
      .basename(dir)
      .replace(/[^A-Za-z0-9]/g, '')
      .toLowerCase() || randomBytes(6).toString('hex');
  const name = `ogt_${suffix}`.slice(0, 60);
  if (!named.has(engine)) named.set(engine, new Set());
  named.get(engine)!.add(name);
  return name;
}

/**
 * Drop every database this process named that still exists: those of tests that failed
 * before their cleanup ran. Only this run's names: other runs may share the server.
 */
export async function dropLeftoverTestDatabases(): Promise<string[]> {
  const dropped: string[] = [];
  for (const [engine, names] of named) {
    if (names.size === 0) continue;
    const side = await connectSide('', true, engine);
    try {
      const existing =
        engine === 'postgresql'
          ? await side.query<{ name: string }>("select datname as name from pg_database where datname like 'ogt\\_%'")
          : await side.query<{ name: string }>(
              "select schema_name as name from information_schema.schemata where schema_name like 'ogt\\_%'",
            );
      for (const { name } of existing) {
        if (!names.has(name)) continue;
        await side.query(
          engine === 'postgresql' ? `drop database if exists "${name}" with (force)` : `drop database if exists \`${name}\``,
        );
        dropped.push(name);
      }
    } finally {
      await side.close();
    }
  }
  return dropped;
}

/** A plain connection of the test's own, beside the server's: for probes and checks. */
export interface SideConnection {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Whether another connection holds an open transaction that has written something. */
  writerActive(): Promise<boolean>;
  /**
   * Server engines: lock the rows `select` finds (for update) in a transaction of this
   * connection until `release`, so that a writer reaching them waits there, mid-transaction.
   * SQLite locks the whole file, not rows: there this does nothing.
   */
  lockRows(select: string, params?: unknown[]): Promise<{ release(): Promise<void> }>;
  close(): Promise<void>;
}

/** A test database's config section, every engine's keys typed (those of the others are absent). */
export interface DatabaseSection extends Record<string, unknown> {
  type: TestEngine;
  path: string;
  name: string;
  ip: string;
  port: number;
  user: string;
  pass: string;
}

/** Connect to the database of `dir`, or to the server's maintenance database with `admin`. */
export async function connectSide(dir: string, admin = false, engine: TestEngine = testEngine): Promise<SideConnection> {
  const section = testDatabaseSection(dir, engine) as DatabaseSection;
  const driver = (await import(`@mikro-orm/${engine}`)) as { MikroORM: typeof MikroORM };
  const dbName = engine === 'sqlite' ? section.path : !admin ? section.name : engine === 'postgresql' ? 'postgres' : 'information_schema';
  const orm = await driver.MikroORM.init({
    entities: [],
    discovery: { warnWhenNoEntities: false },
    dbName,
    ...(engine === 'sqlite' ? {} : { host: section.ip, port: section.port, user: section.user, password: section.pass }),
    allowGlobalContext: true,
    // A probe never creates the database it looks at (MikroORM would): a test asks whether it exists.
    ensureDatabase: false,
  });
  const query = async <T>(sql: string, params: unknown[] = []) => (await orm.em.getConnection().execute(sql, params, 'all')) as T[];
  return {
    query,
    async writerActive() {
      if (engine === 'postgresql') {
        const rows = await query(
          'select 1 from pg_stat_activity where datname = current_database() and backend_xid is not null and pid <> pg_backend_pid()',
        );
        return rows.length > 0;
      }
      if (engine !== 'sqlite') {
        // A statement of another connection that writes, running or waiting on a lock. The
        // test user sees its own threads, which include the server's.
        const rows = await query(
          "select 1 from information_schema.processlist where db = database() and id <> connection_id() and command = 'Query' and (info like 'delete%' or info like 'update%' or info like 'insert%')",
        );
        return rows.length > 0;
      }
      return sqliteWriteLocked(section.path);
    },
    async lockRows(select, params = []) {
      if (engine === 'sqlite') return { release: async () => undefined };
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const ready = new Promise<void>((resolve) => (locked = resolve));
      const holder = orm.em.fork().transactional(async (em) => {
        await em.getConnection().execute(`${select} for update`, params, 'all', em.getTransactionContext());
        locked();
        await released;
        throw new Error('rollback'); // release the locks without committing anything
      });
      const failed = holder.catch((error: Error) => error);
      await Promise.race([ready, failed.then((error) => Promise.reject(error))]);
      return {
        async release() {
          release();
          await failed;
        },
      };
    },
    close: () => orm.close(true),
  };
}

/** Drop the server-engine database that belongs to `dir` (nothing to do for SQLite). */
export async function dropTestDatabase(dir: string, engine: TestEngine = testEngine): Promise<void> {
  if (engine === 'sqlite') return;
  const name = (testDatabaseSection(dir, engine) as { name: string }).name;
  const side = await connectSide(dir, true, engine);
  try {
    await side.query(engine === 'postgresql' ? `drop database if exists "${name}" with (force)` : `drop database if exists \`${name}\``);
  } finally {
    await side.close();
  }
}

/**
 * Whether some process holds SQLite's WAL write lock on `file`: an exclusive POSIX lock on
 * byte 120 of the -shm file, held from a transaction's first write to its end. Read from
 * /proc/locks, so the probe never takes a lock itself (Linux only).
 */
function sqliteWriteLocked(file: string): boolean {
  let inode: number;
  try {
    inode = statSync(`${file}-shm`).ino;
  } catch {
    return false;
  }
  return readFileSync('/proc/locks', 'utf8')
    .split('\n')
    .some((line) => {
      const f = line.trim().split(/\s+/);
      // "1: POSIX  ADVISORY  WRITE 1234 08:01:5678 120 120"
      return f[1] === 'POSIX' && f[3] === 'WRITE' && Number(f[5]?.split(':')[2]) === inode && f[6] === '120' && f[7] === '120';
    });
}
