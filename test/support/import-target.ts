import path from 'node:path';
import { Writable } from 'node:stream';
import { openTarget, type Target } from '../../cli/import-opengnsys/target';
import { makeTestDir, removeTestStore, startServer } from './server';

/** Every bundled plugin, the legacy scheduler included. */
export const allPlugins = [
  'inventory',
  'agents',
  'pxe-modes',
  'live',
  'wol',
  'stats',
  'shell',
  'transfers',
  'images',
  'cache',
  'groups',
  'scheduler',
];

/**
 * A target for the importer: the config and database a test server runs with (started once
 * and stopped, so the schema is there), in a temp dir the caller releases with removeTestStore.
 */
export async function makeImportTarget(config: Record<string, unknown> = {}): Promise<{ dir: string; configFile: string }> {
  const dir = makeTestDir();
  const server = await startServer({ dir, config: { plugins: allPlugins, log: { level: 'warn' }, ...config } });
  await server.close();
  return { dir, configFile: path.join(dir, 'config.json') };
}

/** Open a fresh target as the importer does, run `fn`, then close and remove it. */
export async function withImportTarget<T>(config: Record<string, unknown>, fn: (target: Target) => Promise<T>): Promise<T> {
  const { dir, configFile } = await makeImportTarget(config);
  try {
    const target = await openTarget(configFile, new Writable({ write: (_chunk, _encoding, done) => done() }));
    try {
      return await fn(target);
    } finally {
      await target.close();
    }
  } finally {
    await removeTestStore(dir);
  }
}
