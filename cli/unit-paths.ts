import { statSync } from 'node:fs';
import path from 'node:path';
import { Config } from './config';
import { importPlugins } from '../core/loader';

/**
 * The folders a site's ogserve writes outside its state directory, as its systemd unit must
 * allow them: the unit's ProtectSystem=strict makes every path but the state and log
 * directories read-only, so boot files moved to /srv/tftp or images kept in
 * /opt/opengnsys/images need a ReadWritePaths= line. packaging/unit-paths.mjs writes that
 * line as a drop-in, from the same config the service reads. Core knows no plugin's
 * folders: they are the keys every schema marks as data paths.
 */
export async function configuredDataPaths(
  configFile: string | undefined,
  stateDir: string,
  env: NodeJS.ProcessEnv,
): Promise<Map<string, string>> {
  const config = new Config(configFile, {}, { env, stateDir });
  for (const { definition } of await importPlugins(config.core.plugins, config.baseDirOf('plugins'))) {
    if (definition.config) config.section(definition.section ?? definition.name, definition.config);
  }
  const paths = new Map(config.dataPaths);
  // The SQLite file's path means nothing when the database is on a server.
  if (config.core.database.type !== 'sqlite') paths.delete('database.path');
  return paths;
}

export interface WritablePath {
  path: string;
  /** It does not exist yet: listed with `-` (systemd skips it) until it is made. */
  missing: boolean;
  keys: string[];
}

/**
 * The folders to make writable: a data folder itself, a data file's folder (SQLite writes
 * its journal beside it, a key file is replaced by rename), none inside the state directory.
 */
export function writablePaths(dataPaths: Map<string, string>, stateDir: string): WritablePath[] {
  const byPath = new Map<string, WritablePath>();
  for (const [key, target] of dataPaths) {
    const folder = isFolder(key, target) ? target : path.dirname(target);
    if (inside(folder, stateDir)) continue;
    const entry = byPath.get(folder) ?? { path: folder, missing: !exists(folder), keys: [] };
    entry.keys.push(key);
    byPath.set(folder, entry);
  }
  const all = [...byPath.values()];
  // A folder inside another listed one is writable already.
  return all.filter((p) => !all.some((other) => other !== p && inside(p.path, other.path))).sort((a, b) => a.path.localeCompare(b.path));
}

/** The drop-in (ogserve.service.d/paths.conf) allowing `paths`, saying where they come from. */
export function unitDropIn(paths: WritablePath[], configFile: string | undefined): string {
  const lines = [
    `# Written by packaging/unit-paths.mjs from ${configFile ?? 'the defaults'}: the folders ogserve`,
    '# writes outside its state directory (ProtectSystem=strict makes the rest read-only).',
    '# Write it again after changing them, then: systemctl daemon-reload && systemctl restart ogserve',
    ...paths.map((p) => `#   ${p.path}: ${p.keys.join(', ')}${p.missing ? ' (does not exist yet: make it, owned by ogserve)' : ''}`),
    '[Service]',
  ];
  if (paths.length > 0) lines.push(`ReadWritePaths=${paths.map((p) => `${p.missing ? '-' : ''}${p.path}`).join(' ')}`);
  return `${lines.join('\n')}\n`;
}

/** A key naming a folder (`*_dir`, `directory`) rather than a file, when the path cannot say. */
function isFolder(key: string, target: string): boolean {
  try {
    return statSync(target).isDirectory();
  } catch {
    return /(_dir|directory)$/.test(key);
  }
}

function exists(target: string): boolean {
  try {
    statSync(target);
    return true;
  } catch {
    return false;
  }
}

function inside(target: string, dir: string): boolean {
  const relative = path.relative(dir, target);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
