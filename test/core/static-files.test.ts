// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { test } from 'uvu';
import { App } from '../../core/app';
import { send, withServer } from '../support/server';
import { createApp } from '../../cli/config';

const coreIndex = path.resolve(__dirname, '../../core/index.js');

/**
 * A third-party plugin that mounts a file tree as its home page, and has a console view:
 * written to a temp dir, outside plugins/, with index.html, a hashed asset and its
 * precompressed copies, and a dotfile that must never be served.
 */
function writeSite(): { dir: string; plugin: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-static-'));
  const site = path.join(dir, 'site');
  mkdirSync(path.join(site, 'assets'), { recursive: true });
  writeFileSync(path.join(site, 'index.html'), '<!doctype html><title>site</title>');
  const script = 'console.log("a script long enough to be worth compressing");'.repeat(20);
  writeFileSync(path.join(site, 'assets', 'app-3FQ2XK7A.js'), script);
  writeFileSync(path.join(site, 'assets', 'app-3FQ2XK7A.js.gz'), gzipSync(script));
  writeFileSync(path.join(site, 'assets', 'app-3FQ2XK7A.js.br'), brotliCompressSync(script));
  writeFileSync(path.join(site, '.secret'), 'not for the web');
  const view = path.join(dir, 'view');
  mkdirSync(view);
  writeFileSync(path.join(view, 'view.js'), 'export default function mount(element) { element.textContent = "hi"; }');
  const plugin = path.join(dir, 'site.js');
  writeFileSync(
    plugin,
    `const { definePlugin } = require(${JSON.stringify(coreIndex)});
     module.exports = definePlugin({
       name: 'site',
       console: { title: { en: 'Site', es: 'Sitio' }, dir: ${JSON.stringify(view)}, entry: 'view.js' },
       register(ctx) {
         ctx.files('/site', ${JSON.stringify(site)}, { home: true, immutable: /^\\/assets\\// });
       },
     });`,
  );
  return { dir, plugin };
}

const withSite = (fn: (s: Awaited<Parameters<Parameters<typeof withServer>[0]>[0]>) => Promise<void>) => async () => {
  const { dir, plugin } = writeSite();
  try {
    await withServer(fn, { config: { plugins: ['inventory', plugin] } });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

test(
  'mounted files are served to GET and HEAD without Authorization; the API still needs it',
  withSite(async (s) => {
    const page = await send(s.port, 'GET', '/site/');
    assert.equal(page.status, 200, `index without a key: ${page.text}`);
    assert.match(page.text, /<title>site<\/title>/, 'index.html served for the directory');
    assert.match(String(page.headers['content-type']), /text\/html/, 'html content type');
    const head = await send(s.port, 'HEAD', '/site/index.html');
    assert.equal(head.status, 200, 'HEAD answered');
    assert.equal(head.text, '', 'HEAD has no body');
    const api = await send(s.port, 'GET', '/scopes');
    assert.equal(api.status, 401, 'API paths still need the key');
    const post = await send(s.port, 'POST', '/site/index.html');
    assert.equal(post.status, 401, 'only GET and HEAD reach the files; a POST goes to the API and its key check');
  }),
);

test(
  'index.html is never cached; hashed assets are immutable for a year; every file carries the security headers',
  withSite(async (s) => {
    const page = await send(s.port, 'GET', '/site/');
    assert.equal(page.headers['cache-control'], 'no-cache', 'index revalidated on every use');
    const asset = await send(s.port, 'GET', '/site/assets/app-3FQ2XK7A.js');
    assert.equal(asset.status, 200, 'asset served');
    assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable', 'hashed asset cached for good');
    for (const reply of [page, asset]) {
      assert.match(String(reply.headers['content-security-policy']), /default-src 'self'/, 'nothing from other origins');
      assert.equal(reply.headers['x-content-type-options'], 'nosniff', 'no sniffing');
    }
    const etag = String(page.headers.etag);
    const again = await send(s.port, 'GET', '/site/', undefined, { 'If-None-Match': etag });
    assert.equal(again.status, 304, 'revalidation with the ETag answers 304');
  }),
);

test(
  'precompressed brotli and gzip copies are served to clients that accept them, the plain file otherwise',
  withSite(async (s) => {
    const url = '/site/assets/app-3FQ2XK7A.js';
    const br = await send(s.port, 'GET', url, undefined, { 'Accept-Encoding': 'gzip, deflate, br' });
    assert.equal(br.headers['content-encoding'], 'br', 'brotli preferred');
    assert.match(String(br.headers['content-type']), /javascript/, 'type of the original file');
    assert.equal(br.headers.vary, 'Accept-Encoding', 'caches keep the encodings apart');
    const gz = await send(s.port, 'GET', url, undefined, { 'Accept-Encoding': 'gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip', 'gzip when brotli is not accepted');
    const plain = await send(s.port, 'GET', url);
    assert.equal(plain.headers['content-encoding'], undefined, 'identity without Accept-Encoding');
    assert.match(plain.text, /^console\.log/, 'the original bytes');
  }),
);

test(
  'an encoding is sent only when Accept-Encoding accepts it: q=0 refuses, * stands for the rest, a word inside another is no coding',
  withSite(async (s) => {
    const url = '/site/assets/app-3FQ2XK7A.js';
    for (const [accept, encoding] of [
      ['gzip;q=0, br;q=0', undefined],
      ['br;q=0, gzip', 'gzip'],
      ['br; q=0.5, gzip; q=0.8', 'br'],
      ['*', 'br'],
      ['br;q=0, *', 'gzip'],
      ['*;q=0', undefined],
      ['x-gzip', 'gzip'],
      ['BR', 'br'],
      ['identity', undefined],
      ['abr, gzipped', undefined],
    ] as const) {
      const r = await send(s.port, 'GET', url, undefined, { 'Accept-Encoding': accept });
      assert.equal(r.status, 200, accept);
      assert.equal(r.headers['content-encoding'], encoding, `Accept-Encoding: ${accept}`);
      if (encoding === undefined) assert.match(r.text, /^console\.log/, `${accept}: the original bytes`);
    }
  }),
);

test(
  'a precompressed copy asked for by its own name is a 404, whatever the client accepts',
  withSite(async (s) => {
    for (const url of [
      '/site/assets/app-3FQ2XK7A.js.br',
      '/site/assets/app-3FQ2XK7A.js.gz',
      '/site/assets/app-3FQ2XK7A.js%2ebr',
      '/site/assets/app-3FQ2XK7A.js.br/',
      '/site/assets/app-3FQ2XK7A.js.BR',
    ]) {
      for (const accept of [undefined, 'gzip, deflate, br']) {
        const r = await send(s.port, 'GET', url, undefined, accept ? { 'Accept-Encoding': accept } : {});
        assert.equal(r.status, 404, `${url} (Accept-Encoding: ${accept}): ${r.status} ${String(r.headers['content-encoding'])}`);
        assert.equal(r.headers['content-encoding'], undefined, `${url}: no encoding`);
      }
    }
    const head = await send(s.port, 'HEAD', '/site/assets/app-3FQ2XK7A.js.gz');
    assert.equal(head.status, 404, 'HEAD alike');
  }),
);

test("the console's own copies: /console/index.html.br is a 404, /console/ is brotli only to a client that accepts it", () =>
  withServer(
    async (s) => {
      const copy = await send(s.port, 'GET', '/console/index.html.br');
      assert.equal(copy.status, 404, `${copy.status} ${String(copy.headers['content-encoding'])}`);
      const plain = await send(s.port, 'GET', '/console/');
      assert.equal(plain.headers['content-encoding'], undefined, 'no encoding unasked');
      assert.match(plain.text, /<!doctype html>/i, 'the page itself');
      const br = await send(s.port, 'GET', '/console/', undefined, { 'Accept-Encoding': 'br' });
      assert.equal(br.headers['content-encoding'], 'br', 'brotli when accepted');
    },
    { config: { plugins: ['inventory', 'console'] } },
  ));

test(
  'a missing file, a dotfile or a path that climbs out of the directory is a 404, never the API or a file outside',
  withSite(async (s) => {
    for (const url of [
      '/site/nothing.js',
      '/site/.secret',
      '/site/../package.json',
      '/site/%2e%2e/package.json',
      '/site/assets/../../site.js',
    ]) {
      const r = await send(s.port, 'GET', url);
      assert.equal(r.status, 404, `${url}: ${r.status} ${r.text.slice(0, 80)}`);
      assert.equal(r.body?.error, 'not_found', `${url}: JSON error`);
    }
  }),
);

test(
  'Range is ignored on mounted files: the whole file, 200, whatever it asks (a backwards range once stopped the process)',
  withSite(async (s) => {
    for (const range of ['bytes=5-1', 'bytes=-1', 'bytes=-0', 'bytes=abc', 'bytes=5-', 'bytes=0-1,3-4']) {
      const r = await send(s.port, 'GET', '/site/index.html', undefined, { Range: range });
      assert.equal(r.status, 200, `${range}: ${r.status}`);
      assert.equal(r.text, '<!doctype html><title>site</title>', `${range}: the whole page`);
      assert.equal(r.headers['content-range'], undefined, range);
    }
    assert.equal((await send(s.port, 'GET', '/site/')).status, 200, 'the server still answers');
  }),
);

test(
  'GET / redirects to the home mount, and the bare prefix to its directory',
  withSite(async (s) => {
    const root = await send(s.port, 'GET', '/');
    assert.equal(root.status, 302, 'root redirects');
    assert.equal(root.headers.location, '/site/', 'to the home page');
    const bare = await send(s.port, 'GET', '/site');
    assert.equal(bare.status, 302, 'bare prefix redirects');
    assert.equal(bare.headers.location, '/site/', 'so relative asset paths resolve');
    const rootPost = await send(s.port, 'POST', '/');
    assert.equal(rootPost.status, 401, 'only GET / redirects');
  }),
);

test("GET /version lists the enabled plugins in load order, GET /console-views each plugin's console view, and the view's files are served", async () => {
  const { dir } = writeSite();
  const plugin = path.join(dir, 'viewer.js');
  writeFileSync(
    plugin,
    `const { definePlugin } = require(${JSON.stringify(coreIndex)});
     module.exports = definePlugin({
       name: 'viewer',
       console: { title: { en: 'Site', es: 'Sitio' }, dir: ${JSON.stringify(path.join(dir, 'view'))}, entry: 'view.js' },
       register() {},
     });`,
  );
  try {
    await withServer(
      async (s) => {
        const r = await s.get('/version');
        assert.deepEqual(r.body.plugins, [{ name: 'inventory' }, { name: 'console' }, { name: 'viewer' }], 'plugins');
        const views = await s.get('/console-views');
        assert.deepEqual(
          views.body,
          { views: [{ plugin: 'viewer', title: { en: 'Site', es: 'Sitio' }, entry: '/console/plugins/viewer/view.js' }] },
          views.text,
        );
        const view = await send(s.port, 'GET', '/console/plugins/viewer/view.js');
        assert.equal(view.status, 200, 'view module served without a key');
        assert.match(String(view.headers['content-type']), /javascript/, 'as a script');
      },
      { config: { plugins: ['inventory', 'console', plugin] } },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('without a home mount GET / is an API path: 401 without the key, 404 with it', () =>
  withServer(
    async (s) => {
      assert.equal((await send(s.port, 'GET', '/')).status, 401, 'no key');
      assert.equal((await s.get('/')).status, 404, 'with the key');
    },
    { config: { plugins: ['inventory'] } },
  ));

async function startupError(pluginSource: string, plugins = ['./bad.js']): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-static-bad-'));
  try {
    writeFileSync(path.join(dir, 'bad.js'), `const { definePlugin } = require(${JSON.stringify(coreIndex)});\n${pluginSource}`);
    mkdirSync(path.join(dir, 'files'));
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
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('bad mounts and views stop startup with an error naming the plugin', async () => {
  const files = "require('node:path').join(__dirname, 'files')";
  assert.match(
    await startupError(`module.exports = definePlugin({ name: 'bad', register(ctx) { ctx.files('/a/', ${files}); } });`),
    /plugin 'bad' mounts files at '\/a\/'/,
    'trailing slash refused',
  );
  assert.match(
    await startupError(`module.exports = definePlugin({ name: 'bad', register(ctx) { ctx.files('/a', __dirname + '/none'); } });`),
    /plugin 'bad' mounts files at \/a from .* which is not a directory/,
    'missing directory refused',
  );
  assert.match(
    await startupError(
      `module.exports = definePlugin({ name: 'bad', register(ctx) { ctx.files('/a', ${files}); ctx.files('/a', ${files}); } });`,
    ),
    /files at \/a of plugin 'bad' are already mounted by plugin 'bad'/,
    'one owner per prefix',
  );
  assert.match(
    await startupError(
      `module.exports = definePlugin({ name: 'bad', register(ctx) { ctx.files('/a', ${files}, { home: true }); ctx.files('/b', ${files}, { home: true }); } });`,
    ),
    /both claim the home page/,
    'one home page',
  );
  assert.match(
    await startupError(
      `module.exports = definePlugin({ name: 'bad', console: { title: 'Bad', dir: ${files}, entry: '../bad.js' }, register() {} });`,
      ['console', './bad.js'],
    ),
    /console view of plugin 'bad': entry '..\/bad.js' is not a .js file inside/,
    'a view entry outside its directory refused',
  );
});

test('POST with X-HTTP-Method-Override: GET is routed as the GET, body included; it never turns a read into a change', () =>
  withServer(async (s) => {
    await s.post('/center/add', { name: 'C' });
    await s.post('/room/add', { center: 1, name: 'Lab', netmask: '255.255.255.0' });
    await s.post('/client/add', { name: 'pc7', ip: '10.0.0.7', mac: '020000000007', room: 1 });
    const read = await s.request('POST', '/client/info', { client: ['10.0.0.7'] }, { 'X-HTTP-Method-Override': 'GET' });
    assert.equal(read.status, 200, `overridden read: ${read.text}`);
    assert.equal(read.body.name, 'pc7', 'answered as GET /client/info');
    const bad = await s.request('POST', '/client/info', { client: ['nope'] }, { 'X-HTTP-Method-Override': 'get' });
    assert.equal(bad.status, 400, 'validated as the GET');
    assert.equal(bad.body.field, 'client[0]', 'naming the field');
    const postOnly = await s.request(
      'POST',
      '/client/add',
      { name: 'x', ip: '10.0.0.8', mac: '020000000008', room: 1 },
      {
        'X-HTTP-Method-Override': 'GET',
      },
    );
    assert.equal(postOnly.status, 405, 'a POST-only path read as GET is 405, nothing added');
    const other = await s.request('GET', '/center/info', { id: 1 }, { 'X-HTTP-Method-Override': 'POST' });
    assert.equal(other.status, 200, 'a GET is never turned into anything else');
    const stillOne = await s.get('/scopes');
    assert.equal(stillOne.body.scope[0].scope[0].scope.length, 1, 'one client only');
  }));

test.run();
