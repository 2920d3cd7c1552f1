import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Core's entry point, as a plugin outside the checkout requires it (compiled tests: dist/core). */
export const coreIndex = path.resolve(__dirname, '..', '..', 'core', 'index.js');

/**
 * Run `fn` with a third-party plugin written to `<name>.js` in a temp directory of its own
 * (removed after): `source` gets core's entry point to require.
 */
export async function withPluginFile<T>(name: string, source: (core: string) => string, fn: (file: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(tmpdir(), `ogserve-${name}-`));
  try {
    const file = path.join(dir, `${name}.js`);
    writeFileSync(file, source(JSON.stringify(coreIndex)));
    return await fn(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
