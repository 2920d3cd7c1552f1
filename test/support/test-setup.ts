import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureTestUsers } from './test-users';

/**
 * What the suite runner does before the first test: the database servers' test users
 * (test-users.ts), and a state directory of the run's own, so that a test which does not
 * choose one never writes into the checkout's var/ (an API key, the record of a database
 * server database a later `npm start` would then take for its own). Nested runs (the
 * runner's own tests start it again) inherit both.
 */
export async function prepareTestRun(): Promise<void> {
  if (process.env.OGSERVE_TEST_RUN_PREPARED) return;
  process.env.OGSERVE_TEST_RUN_PREPARED = '1';
  await ensureTestUsers();
  if (!process.env.OGSERVE_STATE_DIR) {
    const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-run-state-'));
    process.env.OGSERVE_STATE_DIR = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
}
