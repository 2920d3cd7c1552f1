import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { StartupError } from '../../core/errors';
import type { Logger } from '../../core/log';

/**
 * No shared default key ships: without `rest.api_token`, a random key is generated on the
 * first start and kept (mode 0600) in `rest.api_token_file` for the next starts.
 */
export function resolveApiToken(configured: string | undefined, file: string, log: Logger): string {
  if (configured) return configured;
  try {
    const stored = readFileSync(file, 'utf8').trim();
    if (stored) return stored;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new StartupError(`rest.api_token_file: cannot read ${file}: ${(error as Error).message}`);
  }
  const token = randomBytes(24).toString('hex');
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${token}\n`, { mode: 0o600 });
  } catch (error) {
    throw new StartupError(`rest.api_token_file: cannot store a generated API key in ${file}: ${(error as Error).message}`);
  }
  log.warn(`no rest.api_token configured: generated an API key and stored it in ${file}`);
  return token;
}
