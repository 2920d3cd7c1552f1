import path from 'node:path';
import { packageRoot } from '../../core/version';

/** Where the service keeps what it writes (database, API key, boot files), and why there. */
export interface StateDirectory {
  dir: string;
  how: string;
}

export const defaultConfigFile = path.join(packageRoot, 'config', 'default.json');

/**
 * The state directory: an explicit choice (`--state-dir`), else `OGSERVE_STATE_DIR`, else the
 * one systemd made for the unit (`StateDirectory=` sets `$STATE_DIRECTORY`), else `var/` of
 * the checkout. That is how an installed service keeps its data under /var/lib/ogserve while
 * a checkout keeps it beside the sources.
 */
export function stateDirectory(env: NodeJS.ProcessEnv, explicit?: string): StateDirectory {
  if (explicit) return { dir: path.resolve(explicit), how: '--state-dir' };
  if (env.OGSERVE_STATE_DIR) return { dir: path.resolve(env.OGSERVE_STATE_DIR), how: 'OGSERVE_STATE_DIR' };
  // systemd lists one directory per StateDirectory= entry, separated by colons.
  const systemd = env.STATE_DIRECTORY?.split(':')[0];
  if (systemd) return { dir: path.resolve(systemd), how: 'systemd StateDirectory' };
  return { dir: path.join(packageRoot, 'var'), how: 'the checkout' };
}
