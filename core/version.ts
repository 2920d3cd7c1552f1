import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from './config';
import { schemaVersions, type Database } from './database';
import type { RouteRegistrar } from './http/routes';

/** The release, read once from package.json. */
export const release = (JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * GET /version -> `{version, database, schema: {<plugin>: <version>}}`: the release, the
 * database engine and the schema version recorded for each plugin, for upgrade checks.
 */
export function versionRoute(router: RouteRegistrar, db: Database): void {
  router.get('/version', { bodyPolicy: 'ignored', log: false }, async () => ({
    version: release,
    database: db.type,
    schema: await schemaVersions(db),
  }));
}
