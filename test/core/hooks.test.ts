// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { eventually } from '../support/fake-agent';
import { withPluginFile } from '../support/plugin-file';
import { withServer } from '../support/server';

/**
 * A plugin on every hook, each app-wide (`global`): a key of its own ('guest-key', a reader),
 * a check before every handler (a center named 'forbidden' is refused, naming the field), and
 * a record of what was answered, kept where the test reads it (GET /hooked); its onResponse
 * hook throws once, which must not cost the answer or the next hooks.
 */
const plugin = (core: string) => `const { definePlugin, badRequest } = require(${core});
module.exports = definePlugin({
  name: 'hooked',
  register(ctx) {
    const seen = [];
    let thrown = false;
    ctx.hooks.authenticate((key) => (key === 'guest-key' ? { name: 'guest', role: 'reader' } : undefined));
    ctx.hooks.preHandler(({ body }) => {
      if (body && body.name === 'forbidden') throw badRequest('invalid_field', 'name: not this one', 'name');
    }, { global: true });
    ctx.hooks.onResponse(({ route, req, access, body, status }) => {
      if (route && route.path === '/hooked') return;
      if (!thrown) { thrown = true; throw new Error('a hook that fails'); }
      seen.push([req.method + ' ' + (route ? route.path : 'unrouted'), access ? access.name : null, body && body.name ? body.name : null, status]);
    }, { global: true });
    ctx.router.get('/hooked', { permission: 'read' }, () => ({ seen }));
  },
});`;

test('plugins join requests through hooks: their keys, a check before every handler, and every answer after it, refused before routing included', async () => {
  await withPluginFile('hooked', plugin, (file) =>
    withServer(
      async (s) => {
        // The first answer's hook throws: logged with its plugin, the answer is whole.
        assert.equal((await s.get('/scopes')).status, 200);
        await eventually(() => s.logs.some((l) => l.msg === "an onResponse hook of plugin 'hooked' failed"), 'the failure logged');
        const refused = await s.post('/center/add', { name: 'forbidden' });
        assert.equal(refused.status, 400);
        assert.equal(refused.body.field, 'name');
        assert.equal((await s.get('/scopes')).text.includes('forbidden'), false, 'nothing written');
        assert.equal((await s.post('/center/add', { name: 'allowed' })).status, 200);
        const guest = await s.request('GET', '/scopes', undefined, { Authorization: 'guest-key' });
        assert.equal(guest.status, 200, 'the plugin key reads');
        const guestWrite = await s.request('POST', '/center/add', { name: 'x' }, { Authorization: 'guest-key' });
        assert.equal(guestWrite.status, 403, 'a reader may not write');
        assert.match(guestWrite.body.message, /the key 'guest' \(reader\)/);
        assert.equal((await s.request('GET', '/scopes', undefined, { Authorization: 'wrong' })).status, 401);
        const seen = (await s.get('/hooked')).body.seen;
        assert.deepEqual(seen, [
          ['POST /center/add', 'api_token', 'forbidden', 400],
          ['GET /scopes', 'api_token', null, 200],
          ['POST /center/add', 'api_token', 'allowed', 200],
          ['GET /scopes', 'guest', null, 200],
          ['POST /center/add', 'guest', null, 403],
          ['GET unrouted', null, null, 401],
        ]);
      },
      { config: { plugins: ['inventory', file] } },
    ),
  );
});

/**
 * A plugin on the two ends of a request: onRequest refuses a request that says it is over a
 * limit (its body unread, its handler not run), onError hears every refusal with its code;
 * its onError hook throws once, which must not cost the answer.
 */
const limiter = (core: string) => `const { definePlugin, HttpError } = require(${core});
module.exports = definePlugin({
  name: 'limiter',
  register(ctx) {
    const heard = [];
    let thrown = false;
    ctx.hooks.onRequest(({ req, route, access }) => {
      if (req.headers['x-over-limit']) throw new HttpError(429, 'too_many_attempts', route.path + ': over the limit for ' + access.name);
    }, { global: true });
    ctx.hooks.onError((error, req) => {
      if (!thrown) { thrown = true; throw new Error('an error hook that fails'); }
      heard.push([req.method + ' ' + req.url, error.status, error.code]);
    }, { global: true });
    ctx.router.get('/limiter', { permission: 'read' }, () => ({ heard }));
  },
});`;

test('onRequest refuses a routed request before its body is read or its handler runs; onError hears each refusal with its code', async () => {
  await withPluginFile('limiter', limiter, (file) =>
    withServer(
      async (s) => {
        const over = await s.request('POST', '/center/add', { name: 'limited' }, { 'X-Over-Limit': '1' });
        assert.deepEqual([over.status, over.body.message], [429, '/center/add: over the limit for api_token'], over.text);
        await eventually(() => s.logs.some((l) => l.msg === "an onError hook of plugin 'limiter' failed"), 'the failure logged');
        assert.equal((await s.get('/scopes')).text.includes('limited'), false, 'the handler did not run');
        const broken = await s.request('POST', '/center/add', '{"name":', { 'X-Over-Limit': '1' });
        assert.equal(broken.status, 429, 'refused before its body is read');
        assert.equal((await s.post('/center/add', { name: 7 })).status, 400);
        assert.equal((await s.request('GET', '/nowhere')).status, 404);
        assert.deepEqual((await s.get('/limiter')).body.heard, [
          ['POST /center/add', 429, 'too_many_attempts'],
          ['POST /center/add', 400, 'invalid_field'],
          ['GET /nowhere', 404, 'not_found'],
        ]);
      },
      { config: { plugins: ['inventory', file] } },
    ),
  );
});

/**
 * A plugin whose hooks are its own (no `global`): they run on its routes and no other
 * plugin's, see the route on the context, and a route of its own has a preHandler of its own;
 * onSend sees what the handler answered before it is sent.
 */
const notes = (core: string) => `const { definePlugin, badRequest, Type } = require(${core});
module.exports = definePlugin({
  name: 'notes',
  register(ctx) {
    const heard = [];
    ctx.hooks.onRequest(({ route }) => { heard.push('request ' + route.path); });
    ctx.hooks.preHandler(({ route, body }) => {
      heard.push('preHandler ' + route.owner + ' ' + route.method + ' ' + route.path);
      if (body && body.text === 'plugin-wide no') throw badRequest('invalid_field', 'text: refused by the plugin', 'text');
    });
    ctx.hooks.onSend((req, result) => { if (req.route.path !== '/notes/heard') heard.push('send ' + req.route.path + ' ' + JSON.stringify(result)); });
    ctx.hooks.onResponse(({ route, status }) => { if (route.path !== '/notes/heard') heard.push('response ' + route.path + ' ' + status); });
    ctx.hooks.onError((error) => { heard.push('error ' + error.status); });
    const onlyHere = ({ body }) => { if (body.text === 'route no') throw badRequest('invalid_field', 'text: refused by the route', 'text'); };
    ctx.router.post('/notes', { permission: 'operate', body: Type.Object({ text: Type.String() }), preHandler: onlyHere }, ({ body }) => ({ saved: body.text }));
    ctx.router.get('/notes/heard', { permission: 'read' }, () => ({ heard: heard.splice(0) }));
  },
});`;

test("a plugin's hooks run on its own routes only unless global; ctx.route says which; a route may have a preHandler of its own; onSend sees the answer", async () => {
  await withPluginFile('notes', notes, (file) =>
    withServer(
      async (s) => {
        assert.equal((await s.post('/center/add', { name: 'elsewhere' })).status, 200);
        assert.equal((await s.post('/center/add', { name: 7 })).status, 400);
        assert.deepEqual(
          (await s.get('/notes/heard')).body.heard,
          ['request /notes/heard', 'preHandler notes GET /notes/heard'],
          'no hook ran for the inventory',
        );
        assert.deepEqual((await s.post('/notes', { text: 'hi' })).body, { saved: 'hi' });
        const byPlugin = await s.post('/notes', { text: 'plugin-wide no' });
        const byRoute = await s.post('/notes', { text: 'route no' });
        assert.deepEqual(
          [byPlugin.status, byPlugin.body.message, byRoute.status, byRoute.body.message],
          [400, 'text: refused by the plugin', 400, 'text: refused by the route'],
        );
        assert.deepEqual((await s.get('/notes/heard')).body.heard, [
          'request /notes',
          'preHandler notes POST /notes',
          'send /notes {"saved":"hi"}',
          'response /notes 200',
          'request /notes',
          'preHandler notes POST /notes',
          'error 400',
          'response /notes 400',
          'request /notes',
          'preHandler notes POST /notes',
          'error 400',
          'response /notes 400',
          'request /notes/heard',
          'preHandler notes GET /notes/heard',
        ]);
      },
      { config: { plugins: ['inventory', file] } },
    ),
  );
});

/** A handler that writes its answer on `res` instead of returning it skips what core adds (X-Sequence, onSend): it is said. */
const writer = (core: string) => `const { definePlugin, Reply } = require(${core});
module.exports = definePlugin({
  name: 'writer',
  register(ctx) {
    ctx.router.get('/written', { permission: 'read' }, ({ res }) => { res.writeHead(200, { 'Content-Type': 'text/plain' }); res.end('by hand'); });
    ctx.router.get('/returned', { permission: 'read' }, () => Reply.stream(200, { 'Content-Type': 'text/plain' }, (res) => res.end('through core')));
  },
});`;

test('every answer leaves through core: a Reply.stream carries what every answer carries; a handler writing res itself is logged', async () => {
  await withPluginFile('writer', writer, (file) =>
    withServer(
      async (s) => {
        const returned = await s.request('GET', '/returned', undefined, { 'X-Sequence': '7' });
        assert.deepEqual([returned.text, returned.headers['x-sequence']], ['through core', '7']);
        const written = await s.request('GET', '/written', undefined, { 'X-Sequence': '8' });
        assert.equal(written.text, 'by hand');
        const said = s.logs.filter((l) => l.level === 'warn' && /wrote its answer itself/.test(l.msg));
        assert.deepEqual(
          said.map((l) => l.msg),
          ['the handler of GET /written wrote its answer itself instead of returning it (a Reply)'],
        );
      },
      { config: { plugins: [file] } },
    ),
  );
});

test.run();
