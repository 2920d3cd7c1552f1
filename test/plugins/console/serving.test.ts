// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { send, withServer } from '../../support/server';

test('the console plugin, enabled by default, is the home page: its built files are served without a key, the API still needs one', () =>
  withServer(async (s) => {
    const root = await send(s.port, 'GET', '/');
    assert.equal(root.status, 302, 'GET / redirects');
    assert.equal(root.headers.location, '/console/', 'to the console');
    const page = await send(s.port, 'GET', '/console/', undefined, { 'Accept-Encoding': 'br, gzip' });
    assert.equal(page.status, 200, 'index.html without a key');
    assert.equal(page.headers['cache-control'], 'no-cache', 'never cached');
    assert.equal(page.headers['content-encoding'], 'br', 'precompressed');
    const plain = await send(s.port, 'GET', '/console/index.html');
    const assets = [...plain.text.matchAll(/(?:src|href)="(assets\/[^"]+)"/g)].map((m) => m[1]!);
    assert.equal(assets.length, 2, `one script and one stylesheet: ${assets.join(', ')}`);
    for (const asset of assets) {
      assert.match(asset, /^assets\/main-[A-Z0-9]{8}\.(js|css)$/, 'hashed name');
      const r = await send(s.port, 'GET', `/console/${asset}`, undefined, { 'Accept-Encoding': 'gzip' });
      assert.equal(r.status, 200, `${asset} served`);
      assert.equal(r.headers['cache-control'], 'public, max-age=31536000, immutable', `${asset} cached for good`);
      assert.equal(r.headers['content-encoding'], 'gzip', `${asset} gzipped`);
    }
    assert.doesNotMatch(plain.text, /https?:\/\//, 'index.html names no other origin');
    assert.ok(
      (await s.get('/version')).body.plugins.some((p: { name: string }) => p.name === 'console'),
      'listed as enabled',
    );
    assert.equal((await send(s.port, 'GET', '/version')).status, 401, 'the API needs the key');
  }));

test('the whole console stays under 200 KiB gzipped', () =>
  withServer(async (s) => {
    const page = await send(s.port, 'GET', '/console/index.html');
    let total = 0;
    for (const file of ['index.html', ...[...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)]) {
      const r = await send(s.port, 'GET', `/console/${file}`, undefined, { 'Accept-Encoding': 'gzip' });
      assert.equal(r.status, 200, `${file} served`);
      total += Number(r.headers['content-length']);
    }
    assert.ok(total > 0 && total < 200 * 1024, `${total} bytes gzipped`);
  }));

test.run();
