// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { eventually } from '../support/fake-agent';
import { withPluginFile } from '../support/plugin-file';
import { withServer } from '../support/server';

/**
 * A plugin on every hook: a key of its own ('guest-key', a reader), a check before every
 * handler (a center named 'forbidden' is refused, naming the field), and a record of what
 * was answered, kept where the test reads it (GET /hooked); its onResponse hook throws
 * once, which must not cost the answer or the next hooks.
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
    });
    ctx.hooks.onResponse(({ route, req, access, body, status }) => {
      if (route && route.path === '/hooked') return;
      if (!thrown) { thrown = true; throw new Error('a hook that fails'); }
      seen.push([req.method + ' ' + (route ? route.path : 'unrouted'), access ? access.name : null, body && body.name ? body.name : null, status]);
    });
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
    });
    ctx.hooks.onError((error, req) => {
      if (!thrown) { thrown = true; throw new Error('an error hook that fails'); }
      heard.push([req.method + ' ' + req.url, error.status, error.code]);
    });
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

test.run();
