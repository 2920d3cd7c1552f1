import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { EntityManager, EntityName, MikroORM, Options, RequiredEntityData } from '@mikro-orm/core';
import { TransactionPropagation } from '@mikro-orm/core';
import type { AbstractSqlConnection } from '@mikro-orm/knex';
import type { CoreSettings } from './config-schema';
import { type DatabaseRecord, describeRecord, readDatabaseRecord, recordOf, writeDatabaseRecord } from './database-record';
import { StartupError } from './errors';
import type { Logger } from './log';
import { lockSqliteFile, type SqliteLock } from './sqlite-lock';
import { plainInsert } from './plain-insert';
import { migrate, recordCurrent, refuseNewer, schemaChanged, storedVersions, type PluginSchema } from './migrations';

type Driver = { MikroORM: typeof MikroORM };

const driverPackages: Record<CoreSettings['database']['type'], string> = {
  sqlite: '@mikro-orm/sqlite',
  mariadb: '@mikro-orm/mariadb',
  mysql: '@mikro-orm/mysql',
  postgresql: '@mikro-orm/postgresql',
};

/**
 * The service's database: one MikroORM instance, a fresh EntityManager per unit of work
 * (MikroORM refuses a shared global context), and the recorded schema version per plugin.
 */
export class Database {
  /** What to run once the transaction of an EntityManager (the one it hands its callback) commits. */
  private readonly commitHooks = new WeakMap<EntityManager, (() => void)[]>();

  constructor(
    readonly orm: MikroORM,
    readonly type: CoreSettings['database']['type'],
    private readonly lock?: SqliteLock,
  ) {
    orm.em.getEventManager().registerSubscriber({
      afterTransactionCommit: ({ em }) => {
        const hooks = this.commitHooks.get(em);
        this.commitHooks.delete(em);
        for (const hook of hooks ?? []) hook();
      },
    });
  }

  /**
   * Run `fn` once the transaction `em` works in has committed (at once when it is in none),
   * never if it rolls back: for in-memory state that must not show a write before it lands.
   */
  afterCommit(em: EntityManager, fn: () => void): void {
    if (em.isInTransaction()) this.commitHooks.set(em, [...(this.commitHooks.get(em) ?? []), fn]);
    else fn();
  }

  /** Call `observe` with the duration of every SQL statement run from now on. */
  onQuery(observe: (seconds: number, ok: boolean) => void): void {
    // Every SQL driver MikroORM offers here runs on knex, which reports each statement.
    const knex = (this.orm.em.getConnection() as AbstractSqlConnection).getKnex();
    const started = new Map<string, bigint>();
    const end = (query: { __knexQueryUid?: string }, ok: boolean) => {
      const uid = query.__knexQueryUid ?? '';
      const at = started.get(uid);
      if (at === undefined) return;
      started.delete(uid);
      observe(Number(process.hrtime.bigint() - at) / 1e9, ok);
    };
    knex.on('query', (query: { __knexQueryUid?: string }) => started.set(query.__knexQueryUid ?? '', process.hrtime.bigint()));
    knex.on('query-response', (_rows: unknown, query: { __knexQueryUid?: string }) => end(query, true));
    knex.on('query-error', (_error: unknown, query: { __knexQueryUid?: string }) => end(query, false));
  }

  /** A fresh unit of work, for its owner alone: a request, a timer's tick, a worker's job. */
  fork(): EntityManager {
    return this.orm.em.fork();
  }

  /** The caller's unit of work, or a fresh one when it gave none (Medusa's `context.manager ?? fresh`). */
  unit(given: EntityManager | undefined): EntityManager {
    return given ?? this.orm.em.fork();
  }

  /**
   * Run `fn` in one transaction: everything it writes lands, or nothing does. It joins the
   * transaction `em` is in, opens one in `em` when it is in none, and in a fresh unit of work
   * when the caller gave none.
   */
  transactional<T>(fn: (em: EntityManager) => Promise<T>, em?: EntityManager): Promise<T> {
    return this.unit(em).transactional(fn, { propagation: TransactionPropagation.REQUIRED });
  }

  /** Plain SQL for hot read paths that need no entity tracking. */
  async query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.orm.em.getConnection().execute(sql, params, 'all')) as T[];
  }

  /**
   * SQL that reads a 64-bit integer column as text: drivers hand 64-bit integers back as
   * doubles (SQLite, MySQL) and anything past 2^53 would lose precision.
   */
  bigintAsText(column: string): string {
    return this.type === 'mariadb' || this.type === 'mysql' ? `cast(${column} as char)` : `cast(${column} as text)`;
  }

  /**
   * Rows written with explicit ids (an import keeping another system's ids) leave
   * PostgreSQL's id sequences behind, and the next insert would collide: move each past its
   * table's largest id. MariaDB and SQLite move their counters by themselves.
   */
  async restartIdSequences(em: EntityManager, entityNames: string[]): Promise<void> {
    if (this.type !== 'postgresql') return;
    for (const name of entityNames) {
      const table = em.getMetadata().get(name).tableName;
      await execute(em, `select setval(pg_get_serial_sequence(?, 'id'), coalesce((select max(id) from "${table}"), 0) + 1, false)`, [
        table,
      ]);
    }
  }

  async close(): Promise<void> {
    await this.orm.close(true);
    await this.lock?.release();
  }
}

/**
 * Open the configured database, refuse one written by a newer ogserve, then bring the
 * tables up to date and record each plugin's schema version. A database server's database
 * is created when missing only on the first start of the state directory `stateDir` on a
 * server, or with `database.create`; the database opened is recorded there.
 */
export async function openDatabase(
  settings: CoreSettings['database'],
  entities: unknown[],
  schemas: PluginSchema[],
  log: Logger,
  stateDir: string,
): Promise<Database> {
  const pkg = driverPackages[settings.type];
  let driver: Driver;
  try {
    driver = (await import(pkg)) as Driver;
  } catch {
    throw new StartupError(`database.type '${settings.type}' needs the package ${pkg} (npm install ${pkg}@6)`);
  }
  const options: Options = {
    entities: entities as Options['entities'],
    discovery: { warnWhenNoEntities: false },
    allowGlobalContext: false,
    debug: false,
    // Our entities are schemas, not decorated classes: no metadata cache is needed.
    metadataCache: { enabled: false },
    forceUndefined: false,
    // MikroORM would create any database it does not find; whether to is decided below.
    ensureDatabase: false,
  };
  let lock: SqliteLock | undefined;
  if (settings.type === 'sqlite') {
    try {
      mkdirSync(path.dirname(settings.path), { recursive: true });
    } catch (error) {
      throw new StartupError(`database.path: cannot create the folder of ${settings.path}: ${(error as Error).message}`);
    }
    lock = await lockSqliteFile(settings.path);
    options.dbName = settings.path;
  } else {
    Object.assign(options, {
      host: settings.ip,
      port: settings.port,
      dbName: settings.name,
      user: settings.user,
      password: settings.pass || undefined,
    });
  }
  if (settings.type === 'mariadb' || settings.type === 'mysql') {
    // MySQL's default collations ignore case ('Lab' = 'lab'); SQLite and PostgreSQL do not.
    // A binary collation makes names and unique keys compare the same on every engine.
    Object.assign(options, { charset: 'utf8mb4', collate: 'utf8mb4_bin' });
  }
  let orm: MikroORM | undefined;
  try {
    orm = await driver.MikroORM.init(options);
    if (settings.type !== 'sqlite') await ensureServerDatabase(orm, settings, stateDir, log);
  } catch (error) {
    await orm?.close(true);
    await lock?.release();
    if (error instanceof StartupError) throw error;
    throw new StartupError(`database: cannot open ${settings.type} database: ${(error as Error).message}`);
  }
  const db = new Database(orm, settings.type, lock);
  if (settings.type === 'sqlite') {
    // WAL lets readers run beside the writer, and a commit is one append to the WAL.
    // synchronous=NORMAL fsyncs the WAL at checkpoints rather than at every commit: a
    // killed process loses nothing committed (the OS holds the written WAL), and a power
    // cut or kernel crash can only lose the last commits before the latest fsync, never
    // leave a half-written transaction or a corrupt file. FULL would fsync every commit,
    // several times slower for agent reports, for durability an appliance rarely needs.
    // These pragmas hold per connection; the SQLite pool keeps exactly one.
    await db.query('pragma journal_mode = WAL');
    await db.query('pragma synchronous = NORMAL');
    await db.query('pragma busy_timeout = 5000');
  }
  try {
    const stored = await storedVersions(db);
    refuseNewer(stored, schemas);
    const runner = {
      type: db.type,
      log,
      query: <T>(sql: string, params?: unknown[]) => db.query<T>(sql, params),
      transactional: <T>(fn: (em: EntityManager) => Promise<T>) => db.transactional(fn),
      execute,
    };
    await migrate(runner, stored, schemas);
    // Tables of plugins seen for the first time (and anything a migration left out) are
    // created from the entities; `safe` never drops a table or a column.
    if (schemaChanged(stored, schemas)) await orm.schema.updateSchema({ safe: true });
    await recordCurrent(runner, stored, schemas);
  } catch (error) {
    await db.close();
    throw error;
  }
  if (settings.type !== 'sqlite') writeDatabaseRecord(stateDir, recordOf(settings), log);
  log.debug({ type: settings.type }, 'database schema ready');
  return db;
}

/**
 * Connect to the server's database, creating it when it is missing and may be created:
 * on the state directory's first start on a server (nothing recorded there), or when
 * `database.create` says so. Otherwise a missing database stops the start, naming it.
 * The user needs the right to create databases only for that first start.
 */
async function ensureServerDatabase(orm: MikroORM, settings: CoreSettings['database'], stateDir: string, log: Logger): Promise<void> {
  const check = await orm.checkConnection();
  if (check.ok) return;
  if (!isMissingDatabase(check.error)) throw check.error ?? new Error(check.reason);
  const wanted = recordOf(settings);
  const recorded = readDatabaseRecord(stateDir);
  if (recorded && !settings.create) throw new StartupError(missingDatabase(wanted, recorded, stateDir));
  try {
    await orm.schema.ensureDatabase({ forceCheck: true });
  } catch (error) {
    // Another instance of a cluster, starting at the same moment, created it first.
    if (!isExistingDatabase(error)) throw error;
    await orm.reconnect({ dbName: settings.name });
  }
  const why = settings.create ? 'database.create is true' : `the first start of the state directory ${stateDir} on a database server`;
  log.info({ database: wanted.name }, `database: created ${settings.type} database ${describeRecord(wanted)} (${why})`);
}

/** The one line a start on a missing database stops with: what is missing, what the state directory ran on, what to do. */
function missingDatabase(wanted: DatabaseRecord, recorded: Partial<DatabaseRecord>, stateDir: string): string {
  const missing = `database: ${wanted.type} database ${describeRecord(wanted)} does not exist`;
  if (recorded.name === undefined)
    return `${missing}, and the state directory ${stateDir} has started before: check database.name, ip and port, or set database.create: true to create it empty`;
  const same = recorded.type === wanted.type && recorded.ip === wanted.ip && recorded.port === wanted.port && recorded.name === wanted.name;
  if (same)
    return `${missing}, though the state directory ${stateDir} ran on it: check that database.ip and database.port name the right server, or set database.create: true to start again with an empty database`;
  return `${missing}; the state directory ${stateDir} runs on ${recorded.type} database ${describeRecord(recorded as DatabaseRecord)}: check database.name (and ip, port), or set database.create: true to create '${wanted.name}' empty`;
}

/** The server says the database does not exist: PostgreSQL's 3D000, MySQL's and MariaDB's 1049. */
function isMissingDatabase(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown } | undefined;
  return e?.code === '3D000' || e?.code === 'ER_BAD_DB_ERROR' || e?.errno === 1049;
}

/** Creating it failed because it exists: PostgreSQL's 42P04, MySQL's and MariaDB's 1007. */
function isExistingDatabase(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown } | undefined;
  return e?.code === '42P04' || e?.code === 'ER_DB_CREATE_EXISTS' || e?.errno === 1007;
}

/** The recorded schema versions, for display. */
export async function schemaVersions(db: Database): Promise<Record<string, number>> {
  return Object.fromEntries(await storedVersions(db));
}

/** Plain SQL inside a unit of work: runs in `em`'s transaction when it has one. */
export async function execute<T = Record<string, unknown>>(em: EntityManager, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await em.getConnection().execute(sql, params, 'all', em.getTransactionContext())) as T[];
}

/** Insert many rows with one statement per `chunk` rows, inside `em`'s transaction. */
export async function insertInChunks<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  rows: RequiredEntityData<T>[],
  chunk = 500,
): Promise<void> {
  for (let i = 0; i < rows.length; i += chunk) {
    const part = rows.slice(i, i + chunk);
    const plain = plainInsert(em, entity, part);
    if (plain) await execute(em, plain.sql, plain.params);
    else await em.insertMany<T>(entity, part);
  }
}
