import { Type } from '@sinclair/typebox';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { schemaVersions, type Database } from './database';
import type { RouteRegistrar } from './http/routes';
import type { PluginDefinition } from './plugin';

/** The checkout (or installed package) root: package.json, bundled defaults and templates live below it. */
export const packageRoot = path.resolve(__dirname, '..', '..');

/** The release, read once from package.json. */
export const release = (JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * GET /version -> `{version, database, schema: {<plugin>: <version>}, plugins: [{name}]}`:
 * the release, the database engine, the schema version recorded for each plugin (for upgrade
 * checks) and the enabled plugins in load order.
 */
export function versionRoute(router: RouteRegistrar, db: Database, plugins: PluginDefinition[]): void {
  const enabled = plugins.map((p) => ({ name: p.name }));
  const response = Type.Object({
    version: Type.String(),
    database: Type.String(),
    schema: Type.Record(Type.String(), Type.Integer()),
    plugins: Type.Array(Type.Object({ name: Type.String() })),
  });
  router.get(
    '/version',
    {
      permission: 'read',
      scoped: 'open',
      bodyPolicy: 'ignored',
      log: false,
      summary: 'release, database, schema versions, plugins',
      response,
    },
    async () => ({
      version: release,
      database: db.type,
      schema: await schemaVersions(db),
      plugins: enabled,
    }),
  );
}
