import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { App } from '../../core/app';
import { container } from 'tsyringe';
import { AgentLink } from '../../plugins/agents';
import { ManualClock } from '../../testing';
import { SchedulerClock } from '../../plugins/scheduler';
import { EventStreamClient } from '../support/event-stream';
import { FakeAgent, eventually } from '../support/fake-agent';
import { addCenter, addClient, addRoom, macFor } from '../support/fixtures';
import { send, startServer, withServer } from '../support/server';
import { createApp } from '../../cli/config';

const coreIndex = path.resolve(__dirname, '../../core/index.js');

/** Write a plugin module into a temp dir, outside plugins/, as a third party would ship it. */
function writePlugin(dir: string, file: string, source: string): string {
  const full = path.join(dir, file);
  writeFileSync(full, source);
  return full;
}

/** Run `fn` with a fresh temp directory, removed afterwards. */
async function inTempDir<T>(prefix: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function startupError(config: Record<string, unknown>): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-plugins-'));
  try {
    const configFile = path.join(dir, 'config.json');
    writeFileSync(
      configFile,
      JSON.stringify({ database: { path: path.join(dir, 'db.sqlite') }, rest: { port: 0, api_token: 't' }, ...config }),
    );
    const app = await createApp({ configFile }).catch((error: Error) => error);
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

test('the small example plugin, copied outside the checkout, loads: its route checks its body, uses the inventory and its listener hears a new client', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-hello-'));
  const copy = path.join(dir, 'hello-plugin');
  cpSync(path.resolve(__dirname, '../../../examples/hello-plugin'), copy, { recursive: true });
  const s = await startServer({ config: { plugins: ['inventory', copy], hello: { greeting: 'Hola' } } });
  try {
    const room = await addRoom(s, await addCenter(s, 'C'), 'Lab');
    await addClient(s, room, '127.0.4.9', macFor(9), { name: 'pc9' });
    assert.deepEqual((await s.get('/hello', { client: '127.0.4.9' })).body, { message: 'Hola, pc9 in room Lab' });
    const bad = await s.get('/hello', { client: '127.0.4' });
    assert.deepEqual([bad.status, bad.body.field], [400, 'client'], bad.text);
    assert.equal((await s.get('/hello', { client: '127.0.4.8' })).body.field, 'client', 'an unknown client is named');
    await eventually(async () => s.logs.some((l) => l.msg === 'Hola, new client 127.0.4.9'), 'the listener heard the new client');
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the documented example plugin, copied outside the checkout, loads: its route, its agent command (REST and scheduled) and its event', async () => {
  // A third party's directory: no node_modules, no ogserve installed beside it.
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-hello-'));
  const copy = path.join(dir, 'hello-complete');
  cpSync(path.resolve(__dirname, '../../../examples/hello-complete'), copy, { recursive: true });
  const services = container.createChildContainer();
  services.register(SchedulerClock, { useValue: new ManualClock(Date.UTC(2026, 0, 1)) });
  const s = await startServer({
    container: services,
    config: {
      plugins: ['inventory', 'agents', 'wol', 'events', 'groups', 'scheduler', copy],
      hello: { greeting: "Hi 'there'", name_prefix: 'pc' },
    },
  });
  let agent: FakeAgent | undefined;
  try {
    const center = await addCenter(s, 'C');
    const room = await addRoom(s, center, 'Lab');
    // Its hook refuses a name outside the rule, naming the field, and nothing is written.
    const refused = await s.post('/client/add', { name: 'lab7', ip: '127.0.4.7', mac: macFor(7), room });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.field, 'name', refused.text);
    assert.match(refused.body.message, /name must start with 'pc'/);
    assert.equal((await s.get('/client/info', { client: ['127.0.4.7'] })).status, 400, 'no client written');
    const id = await addClient(s, room, '127.0.4.7', macFor(7), { name: 'pc7' });
    const renamed = await s.post('/client/update', { id, name: 'x7' });
    assert.equal(renamed.body.field, 'name', 'updates are checked too');
    const r = await s.get('/hello', { client: '127.0.4.7' });
    assert.deepEqual(r.body, { message: "Hi 'there', pc7 in room Lab" }, 'answer');
    const unknown = await s.get('/hello', { client: '127.0.4.8' });
    assert.equal(unknown.body.field, 'client', 'its errors name the field');

    agent = await FakeAgent.connect({ port: s.app.container.resolve(AgentLink).port(), localAddress: '127.0.4.7' });
    // Idle once its connect refresh is answered and stored.
    await eventually(async () => (await s.get('/clients')).body.clients[0]?.last_cmd.result === 'success', 'refreshed');
    assert.ok(
      s.logs.some((l) => l.msg === "Hi 'there', pc7" && l.client === '127.0.4.7'),
      'its agent.connected listener heard the agent',
    );
    const stream = await EventStreamClient.open(s.port, 'types=hello.*');
    try {
      assert.equal((await s.post('/hello/wave', { clients: ['127.0.4.7'], times: 0 })).body.field, 'times', 'params checked');
      const sent = await s.post('/hello/wave', { clients: ['127.0.4.7'], times: 2 });
      assert.deepEqual(sent.body, { clients: [{ addr: '127.0.4.7', outcome: 'sent' }] }, sent.text);
      assert.deepEqual((await agent.waitFor('shell/run')).body, { run: "echo 'Hi there'; echo 'Hi there'", echo: false }, 'the request');
      const event = await stream.waitFor((e) => e.type === 'hello.waved', 'hello.waved');
      assert.deepEqual(event.data, { clients: ['127.0.4.7'] }, 'its event');
    } finally {
      stream.close();
    }

    // The scheduler knows the command by its name, with the same rules.
    const bad = await s.post('/schedule/command', { clients: ['127.0.4.7'], command: 'hello', params: { times: 10 } });
    assert.equal(bad.body.field, 'params.times', bad.text);
    agent.on('run/schedule', { status: 200 }, true); // as the real agent answers it
    const procedure = await s.post('/procedure/add', { center, name: 'greet', steps: [{ command: 'hello', params: {} }] });
    assert.equal(procedure.status, 200, procedure.text);
    const run = await s.post('/procedure/run', { clients: ['127.0.4.7'], procedure: procedure.body.id });
    assert.equal(run.status, 200, run.text);
    assert.deepEqual((await agent.waitFor('shell/run', 1)).body, { run: "echo 'Hi there'", echo: false }, 'sent when due');
  } finally {
    await agent?.close();
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ctx.service: a service registered in the containers the app is given replaces the default, in every plugin that asks', () =>
  inTempDir('ogserve-service-', async (dir) => {
    const plugin = writePlugin(
      dir,
      'clocked.js',
      `const { definePlugin } = require('ogserve');
       module.exports = definePlugin({
         name: 'clocked',
         register(ctx) {
           const clock = ctx.service('Clock', () => ({ now: () => 1 }));
           ctx.router.get('/clocked', { permission: 'read' }, () => ({ now: clock.now(), same: ctx.service('Clock', () => null) === clock }));
         },
       });`,
    );
    const config = { config: { plugins: ['inventory', plugin] } };
    await withServer(async (s) => {
      assert.deepEqual((await s.get('/clocked')).body, { now: 1, same: true }, 'the default, made once');
    }, config);
    const replaced = container.createChildContainer();
    replaced.registerInstance('Clock', { now: () => 2 });
    await withServer(
      async (s) => {
        assert.deepEqual((await s.get('/clocked')).body, { now: 2, same: true }, 'the registered one');
      },
      { ...config, container: replaced },
    );
  }));

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

/** A third-party plugin whose class takes `tokens` through its constructor (JavaScript: no decorators). */
function injectedPlugin(name: string, requires: string[], tokens: string): string {
  return `const { definePlugin, injectableWith, PluginConfig, PluginLog, Type } = require('ogserve');
     const { Inventory } = require('ogserve/plugins/inventory');
     const { AgentLink } = require('ogserve/plugins/agents');
     class Greeter {
       constructor(config, log, other) { this.config = config; this.log = log; this.other = other; }
     }
     injectableWith(Greeter, [${tokens}]);
     module.exports = definePlugin({
       name: '${name}',
       requires: ${JSON.stringify(requires)},
       config: Type.Object({ greeting: Type.String({ default: 'hi' }) }, { additionalProperties: false }),
       register(ctx) {
         const greeter = ctx.make(Greeter);
         ctx.router.get('/greeter', { permission: 'read' }, async () => ({
           greeting: greeter.config.greeting,
           log: greeter.log === ctx.log,
           inventory: greeter.other === ctx.use(Inventory),
           clients: (await greeter.other.clientByIp('10.9.9.9')) ?? 'none',
           once: ctx.make(Greeter) === greeter,
           provided: ctx.make(Inventory) === ctx.use(Inventory),
         }));
       },
     });`;
}

test("ctx.make: a class receives its config, its logger and a required plugin's service through its constructor", () =>
  inTempDir('ogserve-make-', async (dir) => {
    const plugin = writePlugin(dir, 'greeter.js', injectedPlugin('greeter', ['inventory'], 'PluginConfig, PluginLog, Inventory'));
    await withServer(
      async (s) => {
        assert.deepEqual(
          (await s.get('/greeter')).body,
          { greeting: 'hola', log: true, inventory: true, clients: 'none', once: true, provided: true },
          "the config section, the plugin's logger and the inventory, made once; ctx.make(Inventory) is the inventory plugin's",
        );
      },
      { config: { plugins: ['inventory', plugin], greeter: { greeting: 'hola' } } },
    );
  }));

test('ctx.make: a class that takes a service of a plugin not in requires, or of no enabled plugin, stops the start naming both sides', () =>
  inTempDir('ogserve-make-refused-', async (dir) => {
    const sneaky = writePlugin(dir, 'sneaky.js', injectedPlugin('sneaky', [], 'PluginConfig, PluginLog, Inventory'));
    let message = await startupError({ plugins: ['inventory', sneaky] });
    assert.match(
      message,
      /plugin 'sneaky' cannot make 'Greeter': it uses service 'Inventory' of plugin 'inventory' without listing 'inventory' in requires/,
      message,
    );
    const lonely = writePlugin(dir, 'lonely.js', injectedPlugin('lonely', ['inventory'], 'PluginConfig, PluginLog, AgentLink'));
    message = await startupError({ plugins: ['inventory', lonely] });
    assert.match(message, /plugin 'lonely' cannot make 'Greeter': it uses service 'AgentLink', which no enabled plugin provides/, message);
    const wrong = writePlugin(dir, 'wrong.js', injectedPlugin('wrong', ['inventory'], "PluginConfig, PluginLog, Symbol('Nowhere')"));
    message = await startupError({ plugins: ['inventory', wrong] });
    assert.match(message, /plugin 'wrong' cannot make 'Greeter': it uses service 'Nowhere', which no enabled plugin provides/, message);
  }));

test('a plugin uses a service of a plugin it does not require only to be refused, naming both', () =>
  inTempDir('ogserve-container-', async (dir) => {
    const sneaky = writePlugin(
      dir,
      'sneaky.js',
      `const { Inventory } = require('ogserve/plugins/inventory');
       module.exports = { name: 'sneaky', register(ctx) { ctx.use(Inventory); } };`,
    );
    const message = await startupError({ plugins: ['inventory', sneaky] });
    assert.match(
      message,
      /plugin 'sneaky' uses service 'Inventory' of plugin 'inventory' without listing 'inventory' in requires/,
      message,
    );
  }));

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
    for (const [spec, says] of [
      ['{}', 'must name its permission'],
      ["{ permission: 'everything' }", "names permission 'everything', which no enabled plugin declares;"],
    ]) {
      // A file of its own each time: a module is loaded once per path.
      const open = writePlugin(
        dir,
        `open-${says.length}.js`,
        `module.exports = { name: 'open', register(ctx) { ctx.router.post('/open', ${spec}, () => ({})); } };`,
      );
      const message = await startupError({ plugins: [open] });
      // Alone, the plugin sees core's permissions only: those of plugins not enabled are not offered.
      assert.equal(message, `route POST /open of plugin 'open' ${says} (one of read, operate, admin) or be public`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a route scoped to its clients must say where its body names them: a guess, a path not in its schema or to anything but strings stops the start naming the plugin and route', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-scoped-'));
  try {
    const body =
      'Type.Object({ client: Type.String(), room: Type.Integer(), pcs: Type.Array(Type.Object({ ip: Type.String(), n: Type.Integer() })) })';
    for (const [scoped, says] of [
      ["'clients'", 'must say once where its body names its clients'],
      ['{}', 'must say once where its body names its clients'],
      ["{ clients: 'clients' }", "declares where its clients are, but 'clients' is not in the body schema"],
      ["{ clients: 'room' }", "declares where its clients are, but 'room' must hold strings (client addresses) only"],
      ["{ clients: 'pcs.n' }", "declares where its clients are, but 'pcs.n' must hold strings (client addresses) only"],
      ["{ clients: 'pcs..ip' }", "declares where its clients are, but 'pcs..ip' is not a path of property names"],
      ["'everything'", `scoped must be { clients }, 'filtered' or 'open', not "everything"`],
    ]) {
      const file = writePlugin(
        dir,
        `scoped-${scoped.replace(/\W/g, '_')}.js`,
        `const { Type } = require(${JSON.stringify(coreIndex)});
         module.exports = { name: 'notes', register(ctx) {
           ctx.router.post('/notes', { permission: 'operate', scoped: ${scoped}, body: ${body} }, () => ({}));
         } };`,
      );
      const message = await startupError({ plugins: [file] });
      assert.ok(message.startsWith("route POST /notes of plugin 'notes'"), message);
      assert.ok(message.includes(says), `${scoped}: ${message}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a scoped route reads its clients where it says: a nested path, a function; a function that cannot read the body refuses it', async () => {
  await inTempDir('ogserve-scoped-read-', async (dir) => {
    const file = writePlugin(
      dir,
      'notes.js',
      `const { Type } = require(${JSON.stringify(coreIndex)});
       module.exports = { name: 'notes', requires: ['inventory'], register(ctx) {
         const Pc = Type.Object({ ip: Type.String() });
         ctx.router.post('/notes', { permission: 'operate', scoped: { clients: 'pcs.ip' }, body: Type.Object({ pcs: Type.Array(Pc) }) }, ({ body }) => ({ n: body.pcs.length }));
         ctx.router.post('/note', { permission: 'operate', scoped: { clients: (b) => [b.about.pc] }, body: Type.Object({ about: Type.Object({ pc: Type.String() }) }) }, () => ({ ok: true }));
       } };`,
    );
    const s = await startServer({ config: { plugins: ['inventory', 'tokens', 'audit', file] } });
    try {
      const room = await addRoom(s, await addCenter(s, 'A'), 'A1', '255.0.0.0');
      const other = await addRoom(s, await addCenter(s, 'B'), 'B1', '255.0.0.0');
      await addClient(s, room, '127.0.40.1', macFor(0x401));
      await addClient(s, other, '127.0.41.1', macFor(0x411));
      const token = await s.post('/tokens', { name: 'desk', role: 'operator', rooms: [room] });
      const as = { Authorization: token.body.secret };
      const post = (path: string, body: unknown) => send(s.port, 'POST', path, body, as);
      assert.equal((await post('/notes', { pcs: [{ ip: '127.0.40.1' }] })).status, 200);
      assert.equal((await post('/notes', { pcs: [{ ip: '127.0.40.1' }, { ip: '127.0.41.1' }] })).status, 403);
      assert.equal((await post('/note', { about: { pc: '127.0.40.1' } })).status, 200);
      assert.equal((await post('/note', { about: { pc: '127.0.41.1' } })).status, 403);
      const unreadable = await post('/note', { pc: '127.0.41.1' });
      assert.equal(unreadable.status, 400, unreadable.text);
      assert.match(unreadable.body.message, /does not name its clients where this route reads them/);
      // The audit trail names the clients the route declared, refusals included.
      const entries = (await s.get('/audit?token=desk')).body.entries as { path: string; status: number; clients: string[] }[];
      assert.deepEqual(
        entries.filter((e) => e.path === '/notes').map((e) => [e.status, e.clients]),
        [
          [403, ['127.0.40.1', '127.0.41.1']],
          [200, ['127.0.40.1']],
        ],
      );
    } finally {
      await s.close();
    }
  });
});

test("an entity that is not the running MikroORM's EntitySchema stops the start naming the plugin and the entity", async () => {
  await inTempDir('ogserve-entity-', async (dir) => {
    // What a second copy of @mikro-orm/core makes: an object with a schema's shape, not the running class.
    const file = writePlugin(
      dir,
      'notes.js',
      `module.exports = { name: 'notes', entities: [{ meta: { className: 'Note' }, name: 'Note' }], register() {} };`,
    );
    assert.equal(
      await startupError({ plugins: [file] }),
      "plugin 'notes': entity 'Note' is not an EntitySchema of the MikroORM ogserve runs: make it with EntitySchema from 'ogserve' (a plugin's own copy of @mikro-orm/core makes schemas ogserve cannot read)",
    );
    const made = writePlugin(
      dir,
      'kept.js',
      `const { EntitySchema } = require('@mikro-orm/core');
       module.exports = { name: 'kept', entities: [new EntitySchema({ name: 'Kept', tableName: 'kept', properties: { id: { type: 'integer', primary: true } } })], register() {} };`,
    );
    assert.equal(await startupError({ plugins: [made] }), '', "a plugin's require('@mikro-orm/core') is the running one");
  });
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
