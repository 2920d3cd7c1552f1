// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { App } from '../../core';
import { coreIndex } from '../support/plugin-file';
import { TOKEN, withServer } from '../support/server';
import { createApp } from '../../cli/config';

/** A plugin file in `dir` declaring `permissions` and a GET route per entry of `routes` (path: permission). */
function writePlugin(dir: string, name: string, permissions: object, routes: Record<string, string>, requires: string[] = []): string {
  const file = path.join(dir, `${name}.js`);
  const registrations = Object.entries(routes)
    .map(
      ([route, permission]) =>
        `ctx.router.get(${JSON.stringify(route)}, { permission: ${JSON.stringify(permission)} }, () => ({ ok: true }));`,
    )
    .join('\n');
  writeFileSync(
    file,
    `const { definePlugin } = require(${JSON.stringify(coreIndex)});
     module.exports = definePlugin({
       name: ${JSON.stringify(name)},
       requires: ${JSON.stringify(requires)},
       permissions: ${JSON.stringify(permissions)},
       register(ctx) { ${registrations} },
     });`,
  );
  return file;
}

async function withDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-permissions-'));
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function startupError(dir: string, plugins: string[]): Promise<string> {
  const configFile = path.join(dir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({ database: { path: path.join(dir, 'db.sqlite') }, rest: { port: 0, api_token: 't' }, plugins }),
  );
  const app = await createApp({ configFile }).catch((error: Error) => error);
  if (app instanceof App) {
    await app.close();
    return '';
  }
  return app.message;
}

test("a plugin's own permission: the roles it names hold it, the others are refused naming it; one no role holds is the configured key's only", () =>
  withDir(async (dir) => {
    const plugin = writePlugin(
      dir,
      'lab-ops',
      {
        lab: { description: 'book the lab', roles: ['operator', 'admin'] },
        secrets: { description: 'read the lab secrets' },
      },
      { '/lab/book': 'lab', '/lab/secrets': 'secrets' },
      ['inventory'],
    );
    await withServer(
      async (s) => {
        const keys: Record<string, string> = {};
        for (const role of ['reader', 'operator', 'imager', 'admin']) {
          const made = await s.post('/tokens', { name: role, role });
          assert.equal(made.status, 200, made.text);
          keys[role] = made.body.secret;
        }
        const status = async (route: string, key: string) => (await s.request('GET', route, undefined, { Authorization: key })).status;
        assert.deepEqual(
          await Promise.all(['reader', 'operator', 'imager', 'admin'].map((role) => status('/lab/book', keys[role]!))),
          [403, 200, 403, 200],
          'lab: operator and admin',
        );
        const refusal = await s.request('GET', '/lab/book', undefined, { Authorization: keys.reader! });
        assert.match(refusal.body.message, /needs the 'lab' permission, which the key 'reader' \(reader\) does not have/);
        assert.deepEqual(
          await Promise.all(['reader', 'operator', 'imager', 'admin'].map((role) => status('/lab/secrets', keys[role]!))),
          [403, 403, 403, 403],
          'secrets: no role',
        );
        assert.equal(await status('/lab/secrets', TOKEN), 200, 'the configured key holds every permission');
      },
      { config: { plugins: ['inventory', 'tokens', plugin] } },
    );
  }));

test('a route naming a permission nobody declares, a permission declared twice, and a bad name stop the start, naming them', () =>
  withDir(async (dir) => {
    const typo = writePlugin(dir, 'typo', {}, { '/typo': 'opperate' });
    assert.match(
      await startupError(dir, ['inventory', typo]),
      /route GET \/typo of plugin 'typo' names permission 'opperate', which no enabled plugin declares; \(one of read, operate, admin\)/,
    );
    // Without the agents plugin, which declares it, core knows no 'image' permission.
    const imaging = writePlugin(dir, 'imaging', {}, { '/imaging': 'image' });
    assert.match(await startupError(dir, ['inventory', imaging]), /names permission 'image', which no enabled plugin declares/);
    assert.equal(await startupError(dir, ['inventory', 'agents', imaging]), '', "with the agents plugin, 'image' is declared");
    const again = writePlugin(dir, 'again', { shell: { description: 'mine too' } }, {});
    assert.match(
      await startupError(dir, ['inventory', 'agents', again]),
      /permission 'shell' of plugin 'again' is already declared by plugin 'agents'/,
    );
    const core = writePlugin(dir, 'core-again', { read: { description: 'read', roles: ['reader'] } }, {});
    assert.match(await startupError(dir, ['inventory', core]), /permission 'read' of plugin 'core-again' is already declared by core/);
    const bad = writePlugin(dir, 'bad-name', { 'Lab Ops': { description: 'x' } }, {});
    assert.match(await startupError(dir, ['inventory', bad]), /permission 'Lab Ops' of plugin 'bad-name': lower-case letters/);
  }));

test.run();
