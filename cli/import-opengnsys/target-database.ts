import { existsSync } from 'node:fs';
import type { MikroORM, Options } from '@mikro-orm/core';
import sqlite3 from 'sqlite3';
import type { CoreSettings } from '../config';

/** The table where ogserve records its schema versions: a database without it holds no ogserve yet. */
const versionTable = 'ogserve_schema';

/**
 * Whether the target's database holds an ogserve already, asked without creating or
 * changing anything: opening it as `serve` does would create the SQLite file, or the
 * server database, and its tables. A dry run of a target that holds none checks against an
 * empty inventory instead, and leaves nothing behind.
 */
export async function holdsOgserve(database: CoreSettings['database']): Promise<boolean> {
  if (database.type === 'sqlite') return existsSync(database.path) && (await sqliteHasTable(database.path));
  return serverHasTable(database);
}

function sqliteHasTable(file: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (error) => {
      if (error) return reject(error);
      db.get(`select 1 as found from sqlite_master where type = 'table' and name = ?`, [versionTable], (queryError, row) => {
        db.close(() => (queryError ? reject(queryError) : resolve(row !== undefined)));
      });
    });
  });
}

const drivers = { mariadb: '@mikro-orm/mariadb', mysql: '@mikro-orm/mysql', postgresql: '@mikro-orm/postgresql' } as const;

/**
 * Ask the server's catalogue, connected first to a database that always exists (PostgreSQL's
 * `postgres`, MySQL's `information_schema`): connected to the target's own, MikroORM would
 * create it when missing.
 */
async function serverHasTable(database: CoreSettings['database']): Promise<boolean> {
  const type = database.type as keyof typeof drivers;
  const { MikroORM: Orm } = (await import(drivers[type])) as { MikroORM: typeof MikroORM };
  const ask = async (dbName: string, sql: string, params: unknown[]): Promise<unknown[]> => {
    const orm = await Orm.init({
      entities: [],
      discovery: { warnWhenNoEntities: false },
      ensureDatabase: false,
      dbName,
      host: database.ip,
      port: database.port,
      user: database.user,
      password: database.pass || undefined,
      pool: { min: 0, max: 1 },
    } as Options);
    try {
      return (await orm.em.getConnection().execute(sql, params, 'all')) as unknown[];
    } finally {
      await orm.close(true);
    }
  };
  if (type !== 'postgresql') {
    const tables = 'select 1 from information_schema.tables where table_schema = ? and table_name = ?';
    return (await ask('information_schema', tables, [database.name, versionTable])).length > 0;
  }
  // PostgreSQL's catalogue shows a database's tables only from inside it.
  if ((await ask('postgres', 'select 1 from pg_database where datname = ?', [database.name])).length === 0) return false;
  const [row] = (await ask(database.name, 'select to_regclass(?) is not null as found', [versionTable])) as { found: boolean }[];
  return row?.found === true;
}
