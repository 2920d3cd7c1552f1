import type { EntityManager } from '@mikro-orm/core';
import type { CoreSettings } from './config-schema';
import { StartupError } from './errors';
import type { Logger } from './log';

export type DatabaseType = CoreSettings['database']['type'];

/** What a migration step gets: its transaction and the engine it runs on. */
export interface MigrationContext {
  readonly em: EntityManager;
  readonly type: DatabaseType;
  /** Plain SQL inside the step's transaction (`?` placeholders). */
  execute<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  readonly log: Logger;
}

/** One step of a plugin's schema history: it turns version `version - 1` into `version`. */
export interface Migration {
  version: number;
  up(ctx: MigrationContext): Promise<void>;
}

/** A plugin's schema: the version its entities describe and the steps that lead there. */
export interface PluginSchema {
  name: string;
  version: number;
  migrations: Migration[];
  /** Rows the plugin's tables start with, written when they are first created. */
  seed?: (ctx: MigrationContext) => Promise<void>;
}

const versionTable = 'ogserve_schema';

/** Refuse a plugin whose migrations do not lead exactly to its declared version. */
export function checkMigrationList(schema: PluginSchema): void {
  const versions = schema.migrations.map((m) => m.version);
  for (const [i, version] of versions.entries()) {
    if (!Number.isInteger(version) || version < 2 || version > schema.version) {
      throw new StartupError(
        `plugin '${schema.name}': migration version ${version} must be an integer from 2 to its schemaVersion ${schema.version}`,
      );
    }
    if (i > 0 && version <= versions[i - 1]!)
      throw new StartupError(`plugin '${schema.name}': migrations must be listed in increasing version order`);
  }
}

interface Runner {
  type: DatabaseType;
  log: Logger;
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
  transactional<T>(fn: (em: EntityManager) => Promise<T>): Promise<T>;
  execute<T>(em: EntityManager, sql: string, params?: unknown[]): Promise<T[]>;
}

/** The version recorded for each plugin, creating the record table on first use. */
export async function storedVersions(db: Pick<Runner, 'query'>): Promise<Map<string, number>> {
  await db.query(`create table if not exists ${versionTable} (component varchar(100) primary key, version integer not null)`);
  const rows = await db.query<{ component: string; version: number }>(`select component, version from ${versionTable}`);
  return new Map(rows.map((r) => [r.component, Number(r.version)]));
}

/** Startup stops here when the database was written by a newer ogserve (or plugin). */
export function refuseNewer(stored: Map<string, number>, schemas: PluginSchema[]): void {
  for (const schema of schemas) {
    const found = stored.get(schema.name);
    if (found !== undefined && found > schema.version) {
      throw new StartupError(
        `database: the schema of plugin '${schema.name}' is version ${found}, newer than this ogserve knows (${schema.version}); ` +
          'run the ogserve release that wrote it, or restore a backup made before the upgrade',
      );
    }
  }
}

/**
 * Bring every plugin that has a recorded version up to its current one, step by step. Each
 * step and the new version record commit together, so a crash leaves the database at a
 * whole version. (MariaDB and MySQL commit DDL implicitly: a step there should be one
 * statement, or safe to run again.)
 */
export async function migrate(db: Runner, stored: Map<string, number>, schemas: PluginSchema[]): Promise<void> {
  for (const schema of schemas) {
    const from = stored.get(schema.name);
    if (from === undefined || from === schema.version) continue;
    for (const step of schema.migrations) {
      if (step.version <= from) continue;
      db.log.info({ plugin: schema.name, version: step.version }, 'migrating database schema');
      try {
        await db.transactional(async (em) => {
          await step.up({ em, type: db.type, log: db.log, execute: (sql, params = []) => db.execute(em, sql, params) });
          await db.execute(em, `update ${versionTable} set version = ? where component = ?`, [step.version, schema.name]);
        });
      } catch (error) {
        throw new StartupError(
          `database: migrating the schema of plugin '${schema.name}' to version ${step.version} failed, the database stays at the previous version: ${(error as Error).message}`,
        );
      }
    }
  }
}

/**
 * Whether the entities' tables must be (re)generated: a plugin is new, or was upgraded. When
 * every recorded version matches, the tables are current by definition and the schema
 * generator is not run, so a routine restart never alters a production table.
 */
export function schemaChanged(stored: Map<string, number>, schemas: PluginSchema[]): boolean {
  return schemas.some((schema) => stored.get(schema.name) !== schema.version);
}

/**
 * Record every plugin at its current version once its tables exist: plugins seen for the
 * first time, and versions reached without a step of their own (a bump that only adds
 * tables). Done last, so that a crash before it makes the next start create them again. A
 * new plugin's seed rows commit with its version record: both land, or neither does and the
 * next start seeds again.
 */
export async function recordCurrent(db: Runner, stored: Map<string, number>, schemas: PluginSchema[]): Promise<void> {
  for (const schema of schemas) {
    const from = stored.get(schema.name);
    if (from === undefined) {
      const { seed } = schema;
      try {
        await db.transactional(async (em) => {
          await db.execute(em, `insert into ${versionTable} (component, version) values (?, ?)`, [schema.name, schema.version]);
          if (seed) await seed({ em, type: db.type, log: db.log, execute: (sql, params = []) => db.execute(em, sql, params) });
        });
      } catch (error) {
        throw new StartupError(
          `database: the first rows of plugin '${schema.name}' could not be written; the next start tries again: ${(error as Error).message}`,
        );
      }
    } else if (from < schema.version)
      await db.query(`update ${versionTable} set version = ? where component = ?`, [schema.version, schema.name]);
  }
}
