// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { withPluginFile } from '../support/plugin-file';
import { send, withServer } from '../support/server';

test('a public route with a path parameter or a wildcard is reached without a key; a private one with parameters still needs it; Reply.text carries a status and headers', async () => {
  const paths = (core: string) =>
    `const { definePlugin, Reply } = require(${core});
       module.exports = definePlugin({
         name: 'paths',
         register(ctx) {
           const open = { public: true, bodyPolicy: 'ignored' };
           ctx.router.get('/paths/one/:id', open, ({ req }) => Reply.text('one ' + req.params.id, 'text/plain', { status: 418, headers: { 'Retry-After': '7' } }));
           ctx.router.get('/paths/rest/*', open, ({ req }) => Reply.text('rest ' + req.url, 'text/plain'));
           ctx.router.get('/paths/closed/:id', { permission: 'read', bodyPolicy: 'ignored' }, () => Reply.text('closed', 'text/plain'));
         },
       });`;
  await withPluginFile('paths', paths, (plugin) =>
    withServer(
      async (s) => {
        const one = await send(s.port, 'GET', '/paths/one/x1');
        assert.equal(one.status, 418);
        assert.equal(one.text, 'one x1');
        assert.equal(one.headers['retry-after'], '7');
        const rest = await send(s.port, 'GET', '/paths/rest/a/b/c?q=1');
        assert.equal(rest.status, 200);
        assert.equal(rest.text, 'rest /paths/rest/a/b/c?q=1');
        assert.equal((await send(s.port, 'GET', '/paths/one/x1/more')).status, 401, 'one segment only: no route, and not public');
        assert.equal((await send(s.port, 'GET', '/paths/closed/x1')).status, 401);
        assert.equal((await s.get('/paths/closed/x1')).text, 'closed');
        assert.equal((await send(s.port, 'POST', '/paths/one/x1')).status, 401, 'public for its method only');
      },
      { config: { plugins: [`+${plugin}`] } },
    ),
  );
});

test.run();
