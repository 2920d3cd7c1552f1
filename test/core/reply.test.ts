// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { EventStreamClient } from '../support/event-stream';
import { withPluginFile } from '../support/plugin-file';
import { TOKEN, withServer } from '../support/server';

test('every answer goes out through one path: text, uncapped JSON and event streams echo X-Sequence; only what is declared uncapped passes the cap', async () => {
  // A plugin answering 2,000 bytes of text (over the 1,024-byte cap), capped and uncapped.
  const texts = (core: string) =>
    `const { definePlugin, Reply } = require(${core});
       module.exports = definePlugin({
         name: 'texts',
         register(ctx) {
           const text = 'x'.repeat(2000);
           ctx.router.get('/texts/capped', { permission: 'read', bodyPolicy: 'ignored' }, () => Reply.text(text, 'text/plain'));
           ctx.router.get('/texts/whole', { permission: 'read', bodyPolicy: 'ignored' }, () => Reply.text(text, 'text/plain', { uncapped: true }));
         },
       });`;
  await withPluginFile('texts', texts, (plugin) =>
    withServer(
      async (s) => {
        const seq = { 'X-Sequence': 's-42' };
        const capped = await s.request('GET', '/texts/capped', undefined, seq);
        assert.equal(capped.status, 500, 'a capped text over the cap');
        assert.equal(capped.body.error, 'response_too_large');
        assert.equal(capped.headers['x-sequence'], 's-42', 'echoed on the refusal');
        const whole = await s.request('GET', '/texts/whole', undefined, seq);
        assert.equal(whole.status, 200);
        assert.equal(whole.text.length, 2000);
        assert.equal(whole.headers['content-type'], 'text/plain');
        assert.equal(whole.headers['x-sequence'], 's-42');
        // The bundled answers that are not capped JSON: each whole, each with X-Sequence.
        for (const [route, type] of [
          ['/metrics', /^text\/plain; version=0\.0\.4/],
          ['/metrics/targets', /^application\/json/],
          ['/openapi.json', /^application\/json/],
        ] as const) {
          const r = await s.request('GET', route, undefined, seq);
          assert.equal(r.status, 200, `${route}: ${r.text.slice(0, 120)}`);
          assert.match(String(r.headers['content-type']), type, route);
          assert.equal(r.headers['x-sequence'], 's-42', `${route} echoes X-Sequence`);
          assert.equal(Number(r.headers['content-length']), Buffer.byteLength(r.text), `${route} whole`);
        }
        assert.ok(Buffer.byteLength((await s.get('/openapi.json')).text) > 1024, 'the document is past the cap');
        const stream = await EventStreamClient.open(s.port, '', { Authorization: TOKEN, ...seq });
        try {
          assert.equal(stream.status, 200);
          assert.equal(stream.headers['x-sequence'], 's-42', 'the event stream echoes X-Sequence');
          assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
        } finally {
          stream.close();
        }
      },
      { config: { rest: { max_response_bytes: 1024 }, plugins: [`+${plugin}`] } },
    ),
  );
});

test.run();
