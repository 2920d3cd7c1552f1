import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { App } from '../../core/app';
import { withServer } from '../support/server';

const coreIndex = path.resolve(__dirname, '../../core/index.js');

/** Write a plugin module into a temp dir, outside plugins/, as a third party would ship it. */
function writePlugin(dir: string, file: string, source: string): string {
  const full = path.join(dir, file);
  writeFileSync(full, source);
  return full;
}

async function startupError(config: Record<string, unknown>): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-plugins-'));
  try {
    const configFile = path.join(dir, 'config.json');
    writeFileSync(
      configFile,
      JSON.stringify({ database: { path: path.join(dir, 'db.sqlite') }, rest: { port: 0, api_token: 't' }, ...config }),
    );
    const app = await App.create({ configFile }).catch((error: Error) => error);
    if (app instanceof App) {
      await app.close();
      return '';
    }
    return app.message;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a third-party plugin outside plugins/ is loaded from a path relative to the config file', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-third-party-'));
  try {
    writePlugin(
      dir,
      'hello.js',
      `const { definePlugin, Type } = require(${JSON.stringify(coreIndex)});
       module.exports = definePlugin({
         name: 'hello',
         requires: ['inventory'],
         config: Type.Object({ greeting: Type.String({ default: 'hi' }) }, { additionalProperties: false }),
         register(ctx) {
           ctx.router.get('/hello', { permission: 'read' }, () => ({ greeting: ctx.config.greeting }));
         },
       });`,
    );
    await withServer(
      async (s) => {
        const r = await s.get('/hello');
        assert.equal(r.status, 200, 'plugin route answers');
        assert.deepEqual(r.body, { greeting: 'hola' }, 'plugin config section applied');
      },
      { config: { plugins: ['inventory', path.join(dir, 'hello.js')], hello: { greeting: 'hola' } } },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the documented example plugin (examples/hello-plugin) loads and uses the Inventory service', () =>
  withServer(
    async (s) => {
      await s.post('/center/add', { name: 'C' });
      await s.post('/room/add', { center: 1, name: 'Lab', netmask: '255.255.255.0' });
      await s.post('/client/add', { name: 'pc7', ip: '10.0.0.7', mac: '020000000007', room: 1 });
      const r = await s.get('/hello', { client: '10.0.0.7' });
      assert.deepEqual(r.body, { message: 'Hi, pc7 in room Lab' }, 'answer');
      const unknown = await s.get('/hello', { client: '10.0.0.8' });
      assert.equal(unknown.body.field, 'client', 'its errors name the field');
    },
    { config: { plugins: ['inventory', path.resolve(__dirname, '../../../examples/hello-plugin')], hello: { greeting: 'Hi' } } },
  ));

test('plugins that require each other in a cycle stop startup with one clear error', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-cycle-'));
  try {
    const a = writePlugin(dir, 'a.js', `module.exports = { name: 'a', requires: ['b'], register() {} };`);
    const b = writePlugin(dir, 'b.js', `module.exports = { name: 'b', requires: ['a'], register() {} };`);
    const message = await startupError({ plugins: [a, b] });
    assert.match(message, /cycle: a -> b -> a/, message);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a missing dependency names both plugins', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-missing-'));
  try {
    const a = writePlugin(dir, 'a.js', `module.exports = { name: 'a', requires: ['nowhere'], register() {} };`);
    const message = await startupError({ plugins: [a] });
    assert.match(message, /dependency 'nowhere' of plugin 'a' is not enabled/, message);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a plugin using a service it did not require is refused', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-undeclared-'));
  try {
    const sneaky = writePlugin(
      dir,
      'sneaky.js',
      `const { Inventory } = require(${JSON.stringify(path.resolve(__dirname, '../../plugins/inventory/index.js'))});
       module.exports = { name: 'sneaky', register(ctx) { ctx.use(Inventory); } };`,
    );
    const message = await startupError({ plugins: ['inventory', sneaky] });
    assert.match(
      message,
      /plugin 'sneaky' uses service 'Inventory' of plugin 'inventory' without listing 'inventory' in requires/,
      message,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('two plugins claiming one route are refused, naming both', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-route-'));
  try {
    const clash = writePlugin(
      dir,
      'clash.js',
      `module.exports = { name: 'clash', register(ctx) { ctx.router.get('/scopes', { permission: 'read' }, () => ({})); } };`,
    );
    const message = await startupError({ plugins: ['inventory', clash] });
    assert.match(message, /route GET \/scopes of plugin 'clash' is already registered by plugin 'inventory'/, message);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a route that declares no permission, or an unknown one, stops startup naming the plugin and the route', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-route-'));
  try {
    for (const spec of ['{}', "{ permission: 'everything' }"]) {
      const open = writePlugin(
        dir,
        'open.js',
        `module.exports = { name: 'open', register(ctx) { ctx.router.post('/open', ${spec}, () => ({})); } };`,
      );
      const message = await startupError({ plugins: [open] });
      assert.match(
        message,
        /route POST \/open of plugin 'open' must declare its permission \(one of read, operate, image, admin, shell\) or be public/,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an unloadable or malformed plugin stops startup naming it', async () => {
  assert.match(
    await startupError({ plugins: ['no-such-package-ogserve'] }),
    /^config: plugins: 'no-such-package-ogserve' cannot be loaded: /,
  );
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-bad-'));
  try {
    const bad = writePlugin(dir, 'bad.js', `module.exports = { hello: 1 };`);
    assert.match(await startupError({ plugins: [bad] }), /exports no plugin definition/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a disabled plugin leaves its routes answering 404', () =>
  withServer(
    async (s) => {
      const r = await s.post('/center/add', { name: 'x' });
      assert.equal(r.status, 404, 'inventory route absent');
    },
    { config: { plugins: [] } },
  ));

test.run();
