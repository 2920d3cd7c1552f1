import { existsSync } from 'node:fs';
import type { MikroORM, Options } from '@mikro-orm/core';
import type { AbstractSqlConnection, Knex } from '@mikro-orm/knex';
import { Config, type CoreSettings } from '../config';
import { StartupError } from '../../core/errors';
import { importPlugins, orderPlugins } from '../../core/loader';
import type { PluginDefinition } from '../../core/plugin';
import { decode, type TableSpec, tableSpecs } from './tables';

/** Where a site keeps what a backup holds besides its tables, as `ogserve serve` takes the config. */
export interface SiteFiles {
  config: Config;
  definitions: PluginDefinition[];
  /** The folders of files the enabled plugins give a backup (pxe-modes: its boot files' `bios` and `uefi`), by area. */
  bootDirs: { area: string; dir: string }[];
  /** rest.api_token_file: the generated key. */
  tokenFile: string;
}

/** Read the config and import its plugins as `serve` would, opening nothing. */
export async function siteFiles(configFile: string | undefined, stateDir: string | undefined): Promise<SiteFiles> {
  const config = new Config(configFile, {}, { stateDir });
  const definitions = orderPlugins((await importPlugins(config.core.plugins, config.baseDirOf('plugins'))).map((p) => p.definition));
  const bootDirs = definitions.flatMap(({ backup, config: schema, name, section }) => {
    if (!backup?.folders) return [];
    const folders = backup.folders(schema ? config.section(section ?? name, schema) : {});
    return Object.entries(folders).map(([area, dir]) => ({ area, dir }));
  });
  return { config, definitions, bootDirs, tokenFile: config.core.rest.api_token_file };
}

const drivers: Record<CoreSettings['database']['type'], string> = {
  sqlite: '@mikro-orm/sqlite',
  mariadb: '@mikro-orm/mariadb',
  mysql: '@mikro-orm/mysql',
  postgresql: '@mikro-orm/postgresql',
};

/**
 * A connection to a site's database that changes nothing: no schema update, no migration,
 * no lock (a SQLite file served by a running ogserve is read beside it, as WAL allows).
 */
export interface Source {
  orm: MikroORM;
  knex: Knex;
  specs: TableSpec[];
  close(): Promise<void>;
}

export async function openSource(database: CoreSettings['database'], definitions: PluginDefinition[]): Promise<Source> {
  if (database.type === 'sqlite' && !existsSync(database.path))
    throw new StartupError(`database.path: ${database.path} does not exist: there is nothing to back up`);
  const { MikroORM: Orm } = (await import(drivers[database.type])) as { MikroORM: typeof MikroORM };
  const options: Options = {
    entities: definitions.flatMap((d) => d.entities ?? []) as Options['entities'],
    discovery: { warnWhenNoEntities: false },
    metadataCache: { enabled: false },
    allowGlobalContext: true,
    ensureDatabase: false,
    debug: false,
    pool: { min: 0, max: 1 },
  };
  if (database.type === 'sqlite') options.dbName = database.path;
  else
    Object.assign(options, {
      host: database.ip,
      port: database.port,
      dbName: database.name,
      user: database.user,
      password: database.pass || undefined,
    });
  if (database.type === 'mariadb' || database.type === 'mysql') Object.assign(options, { charset: 'utf8mb4', collate: 'utf8mb4_bin' });
  let orm: MikroORM;
  try {
    orm = await Orm.init(options);
    const check = await orm.checkConnection();
    if (!check.ok) {
      await orm.close(true);
      throw new Error(check.reason);
    }
  } catch (error) {
    throw new StartupError(`database: cannot open ${database.type} database: ${(error as Error).message}`);
  }
  const knex = (orm.em.getConnection() as AbstractSqlConnection).getKnex();
  return { orm, knex, specs: tableSpecs(orm, definitions), close: () => orm.close(true) };
}

/** What a snapshot reads: the schema versions and each table's rows, page by page, as they were when it began. */
export interface Snapshot {
  versions(): Promise<Map<string, number>>;
  /** The rows of a table in id order, a page at a time. */
  pages(spec: TableSpec, pageSize?: number): AsyncGenerator<unknown[][]>;
  count(table: string): Promise<number>;
}

/**
 * Run `fn` in one read transaction: REPEATABLE READ on PostgreSQL, MariaDB and MySQL (a
 * snapshot taken at its first read, which is the schema versions), and SQLite's deferred
 * transaction, which in WAL mode reads one snapshot from its first read to its end.
 */
export async function inSnapshot<T>(source: Source, type: CoreSettings['database']['type'], fn: (s: Snapshot) => Promise<T>): Promise<T> {
  const config =
    type === 'sqlite'
      ? {}
      : type === 'postgresql'
        ? { isolationLevel: 'repeatable read' as const, readOnly: true }
        : { isolationLevel: 'repeatable read' as const };
  const textType = type === 'mariadb' || type === 'mysql' ? 'char' : 'text';
  return source.knex.transaction(async (trx) => {
    const snapshot: Snapshot = {
      async versions() {
        const rows = (await trx('ogserve_schema').select('component', 'version')) as { component: string; version: number }[];
        return new Map(rows.map((r) => [r.component, Number(r.version)]));
      },
      async *pages(spec, pageSize = 2000) {
        const select = spec.columns.map((c) =>
          c.codec === 'bigint' ? trx.raw(`cast(?? as ${textType}) as ??`, [c.name, c.name]) : trx.ref(c.name),
        );
        const idAt = spec.columns.findIndex((c) => c.name === 'id');
        let last = -Infinity;
        for (;;) {
          const query = trx(spec.table).select(select).orderBy('id').limit(pageSize);
          if (last !== -Infinity) query.where('id', '>', last);
          const page = (await query) as Record<string, unknown>[];
          yield page.map((row) => spec.columns.map((c) => decode(c.codec, row[c.name])));
          if (page.length < pageSize) return;
          last = Number(page.at(-1)!.id);
          if (idAt < 0) return;
        }
      },
      async count(table) {
        const [row] = (await trx(table).count({ n: '*' })) as { n: number | string }[];
        return Number(row?.n ?? 0);
      },
    };
    return fn(snapshot);
  }, config);
}
