import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * What kill tests of boot-file writers share: the boot folders read whole, compared with
 * what they should hold, and the random kill points (seeded, so a failure can be replayed).
 */

/** The boot folders a test server of `dir` uses (test/support/server.ts), by folder name. */
export const bootFolders = ['menu.lst', 'grub'] as const;

/** Every entry of both boot folders, `<folder>/<name>` -> bytes (temp files and all). */
export function readBootFolders(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const folder of bootFolders) {
    const full = path.join(dir, 'tftpboot', folder);
    if (!existsSync(full)) continue;
    for (const name of readdirSync(full)) files.set(`${folder}/${name}`, readFileSync(path.join(full, name)));
  }
  return files;
}

/**
 * How the folders differ from what they should hold, one line per file (at most `limit`):
 * missing, different, or there though nothing should be (a temp file, a stale file).
 */
export function bootFolderDifferences(actual: Map<string, Buffer>, expected: Map<string, Buffer>, limit = 10): string[] {
  const out: string[] = [];
  for (const [name, bytes] of expected) {
    const found = actual.get(name);
    if (!found) out.push(`${name} missing`);
    else if (!found.equals(bytes)) out.push(`${name} differs: ${JSON.stringify(found.toString().slice(0, 80))}`);
  }
  for (const name of actual.keys()) if (!expected.has(name)) out.push(`${name} should not be there`);
  return out.slice(0, limit);
}

/** How many kills a kill test tries per scenario: OGSERVE_TEST_KILLS raises it for a long local run. */
export function killsPerScenario(ciDefault: number): number {
  const raised = Number(process.env.OGSERVE_TEST_KILLS);
  return Number.isInteger(raised) && raised > 0 ? raised : ciDefault;
}

/** A seeded random source in [0, 1) (mulberry32); OGSERVE_TEST_SEED replays a run. */
export function seededRandom(): { seed: number; next: () => number } {
  const seed = Number(process.env.OGSERVE_TEST_SEED) || Math.floor(Math.random() * 2 ** 31);
  let state = seed;
  return {
    seed,
    next() {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
    },
  };
}
