// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { makeTestDir, removeTestStore, startServer, TOKEN } from '../support/server';
import { spawnServer } from '../support/child-server';

/**
 * One ogserve per SQLite file: a second one refuses to start, naming the file; a killed
 * one leaves no lock behind. SQLite only, whatever engine the suite runs on.
 */

const mainJs = path.resolve(__dirname, '../../cli/main.js');

function siteConfig(dir: string): string {
  const file = path.join(dir, 'config.json');
  writeFileSync(
    file,
    JSON.stringify({
      rest: { ip: '127.0.0.1', port: 0, api_token: TOKEN },
      agents: { ip: '127.0.0.1', port: 0 },
      database: { type: 'sqlite', path: path.join(dir, 'ogserve.sqlite') },
      plugins: ['inventory', 'agents'],
    }),
  );
  return file;
}

test('a second service on the same file in the same process is refused; the first keeps serving', async () => {
  const dir = makeTestDir();
  try {
    const first = await startServer({ dir, engine: 'sqlite' });
    try {
      const file = path.join(dir, 'ogserve.sqlite');
      await assert.rejects(
        startServer({ dir, engine: 'sqlite' }),
        (error: Error) => {
          assert.equal(error.message, `database.path: ${file} is in use by another ogserve; a SQLite file serves one ogserve at a time`);
          return true;
        },
        'refused',
      );
      assert.equal((await first.get('/scopes')).status, 200, 'the first one still answers');
    } finally {
      await first.close();
    }
    const after = await startServer({ dir, engine: 'sqlite' });
    await after.close();
  } finally {
    await removeTestStore(dir, 'sqlite');
  }
});

test('a second process exits 1 naming the file and the first one; after a SIGKILL of the first, a new one starts', async () => {
  const dir = makeTestDir();
  try {
    const configFile = siteConfig(dir);
    const first = await spawnServer({ dir });
    try {
      const second = spawnSync(process.execPath, [mainJs, '--config', configFile], { encoding: 'utf8', timeout: 20_000 });
      assert.equal(second.status, 1, 'exit code');
      assert.equal(
        second.stderr,
        `ogserve: database.path: ${path.join(dir, 'ogserve.sqlite')} is in use by another ogserve (pid ${first.child.pid}); ` +
          'a SQLite file serves one ogserve at a time\n',
        'one line naming the file and the process holding it',
      );
    } finally {
      await first.kill();
    }
    // SIGKILL: nothing ran at exit, yet the system released the lock with the process.
    const next = await spawnServer({ dir });
    await next.kill();
  } finally {
    await removeTestStore(dir, 'sqlite');
  }
});

test.run();
