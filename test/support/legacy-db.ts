import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { MikroORM } from '@mikro-orm/mysql';
import { bulkSiteStatements, type BulkSite } from './legacy-site';

/**
 * A legacy OpenGnsys database on the MariaDB server every CI run has (whatever engine the
 * suite targets): a fresh `ogt_legacy_*` database built from test/fixtures/opengnsys, for the
 * importer to read. `withLegacyDatabase` drops it afterwards, even when the test fails.
 */
const server = { host: '127.0.0.1', port: 3306, user: 'ogserve_test', password: 'ogserve_test' };
const fixtures = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'opengnsys');

export interface LegacyOptions {
  /** Load site.sql, the hand-written cases (default true). */
  site?: boolean;
  /** Ordinary computers and partitions to add (test/support/legacy-site.ts). */
  bulk?: BulkSite;
}

export interface LegacyDatabase {
  name: string;
  /** `mysql://ogserve_test:ogserve_test@127.0.0.1:3306/<name>`, what `--from` takes. */
  url: string;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  drop(): Promise<void>;
}

/** The statements of a fixture file: `--` lines dropped, one statement per `;` at a line's end. */
export function fixtureStatements(file: string): string[] {
  const text = readFileSync(path.join(fixtures, file), 'utf8')
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('--'))
    .join('\n');
  return text
    .split(/;\s*$/m)
    .map((s) => s.trim())
    .filter(Boolean);
}

async function connect(dbName: string): Promise<MikroORM> {
  return MikroORM.init({
    entities: [],
    discovery: { warnWhenNoEntities: false },
    dbName,
    ...server,
    allowGlobalContext: true,
    // One connection: the session settings of the statements below hold for all of them.
    pool: { min: 1, max: 1 },
  });
}

export async function createLegacyDatabase(options: LegacyOptions = {}): Promise<LegacyDatabase> {
  const name = `ogt_legacy_${randomBytes(6).toString('hex')}`;
  const admin = await connect('information_schema');
  try {
    await admin.em.getConnection().execute(`create database \`${name}\` character set utf8`);
  } finally {
    await admin.close(true);
  }
  const drop = async (): Promise<void> => {
    const again = await connect('information_schema');
    try {
      await again.em.getConnection().execute(`drop database if exists \`${name}\``);
    } finally {
      await again.close(true);
    }
  };
  let orm: MikroORM | undefined;
  try {
    orm = await connect(name);
    const connection = orm.em.getConnection();
    const statements = [
      ...fixtureStatements('schema.sql'),
      ...(options.site === false ? [] : fixtureStatements('site.sql')),
      ...(options.bulk ? bulkSiteStatements(options.bulk) : []),
    ];
    for (const statement of statements) await connection.execute(statement);
  } catch (error) {
    await orm?.close(true);
    await drop();
    throw error;
  }
  const open = orm;
  return {
    name,
    url: `mysql://${server.user}:${server.password}@${server.host}:${server.port}/${name}`,
    query: async <T>(sql: string, params: unknown[] = []) => (await open.em.getConnection().execute(sql, params, 'all')) as T[],
    async drop() {
      await open.close(true);
      await drop();
    },
  };
}

/** Run `fn` with a fresh legacy database, dropped afterwards whatever happens. */
export async function withLegacyDatabase<T>(options: LegacyOptions, fn: (db: LegacyDatabase) => Promise<T>): Promise<T> {
  const db = await createLegacyDatabase(options);
  try {
    return await fn(db);
  } finally {
    await db.drop();
  }
}
