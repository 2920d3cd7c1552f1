import path from 'node:path';
import type { CoreSettings } from '../../core/config-schema';
import { defaultDatabasePorts } from '../../core/database-record';
import type { Logger } from '../../core/log';
import { release } from '../../core/version';
import type { Config } from './site-config';

/** `sqlite /var/lib/ogserve/ogserve.sqlite`, `mariadb database 'og' on 10.0.0.2:3306 as 'og'`. */
export function describeDatabase(database: CoreSettings['database'], inferred: boolean): string {
  if (database.type === 'sqlite') return `sqlite ${database.path}`;
  const port = database.port ?? defaultDatabasePorts[database.type];
  const why = inferred ? " (no database.type: the reference's database keys mean MySQL/MariaDB)" : '';
  return `${database.type}${why} database '${database.name}' on ${database.ip}:${port} as '${database.user}'`;
}

/**
 * The first lines of every start, said once: what runs, with which config, on which
 * database, with which plugins. Plugins add their own lines from `onStart` (pxe-modes: its
 * server address and templates), listeners theirs when they open.
 */
export function logStart(log: Logger, config: Config, plugins: string[]): void {
  const file = config.file ? path.resolve(config.file) : 'none (the defaults)';
  const env = config.envVariables.length > 0 ? `, overridden by ${config.envVariables.join(', ')}` : '';
  log.info(
    { version: release, config: config.file ? file : null, env: config.envVariables, state_dir: config.stateDir.dir },
    `ogserve ${release} starting: config ${file}${env}; state directory ${config.stateDir.dir} (${config.stateDir.how})`,
  );
  log.info({ database: config.core.database.type }, `database: ${describeDatabase(config.core.database, config.databaseTypeInferred)}`);
  log.info({ plugins }, `plugins: ${plugins.join(', ')}`);
}
