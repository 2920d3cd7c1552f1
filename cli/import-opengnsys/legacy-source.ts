import { MikroORM } from '@mikro-orm/mysql';
import { StartupError } from '../../core/errors';
import { KNOWN_SCHEMA_VERSION } from './schema-version';
import { describeSource, type SourceUrl } from './source-url';

/**
 * A read-only view of a legacy database. Everything is read on one connection inside one
 * read-only transaction with a consistent snapshot, so a reference server still running
 * beside the import cannot make the tables disagree with each other half-way.
 */
export class LegacySource {
  private constructor(
    private readonly orm: MikroORM,
    readonly description: string,
    readonly schemaVersion: number,
  ) {}

  static async open(url: SourceUrl): Promise<LegacySource> {
    const description = describeSource(url);
    let orm: MikroORM | undefined;
    try {
      orm = await MikroORM.init({
        entities: [],
        discovery: { warnWhenNoEntities: false },
        dbName: url.database,
        host: url.host,
        port: url.port,
        user: url.user,
        password: url.password || undefined,
        allowGlobalContext: true,
        // A mistyped --from must not leave an empty database behind: MikroORM creates any it does not find.
        ensureDatabase: false,
        debug: false,
        pool: { min: 1, max: 1 },
        driverOptions: { connection: { connectTimeout: 10_000 } },
      });
      await orm.em.getConnection().execute('start transaction with consistent snapshot, read only');
    } catch (error) {
      await orm?.close(true);
      throw new StartupError(`cannot read ${description}: ${(error as Error).message}`);
    }
    const open = orm;
    try {
      return new LegacySource(open, description, await schemaVersion(open, description));
    } catch (error) {
      await open.close(true);
      throw error;
    }
  }

  async query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.orm.em.getConnection().execute(sql, params, 'all')) as T[];
  }

  async close(): Promise<void> {
    await this.orm.close(true);
  }
}

async function schemaVersion(orm: MikroORM, description: string): Promise<number> {
  let rows: { version: number }[];
  try {
    rows = (await orm.em.getConnection().execute('select version from version')) as { version: number }[];
  } catch {
    throw new StartupError(
      `${description} has no table 'version': it is not an OpenGnsys ogServer database, or the reference server never started on it (start it once: it upgrades the schema)`,
    );
  }
  // The reference reads the last row.
  const version = Number(rows.at(-1)?.version ?? -1);
  if (version < KNOWN_SCHEMA_VERSION) {
    throw new StartupError(
      `${description} is at schema version ${version}: start the reference ogServer on it once, so that it upgrades the schema to version ${KNOWN_SCHEMA_VERSION}, then import`,
    );
  }
  return version;
}
