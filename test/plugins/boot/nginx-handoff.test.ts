// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { closeSync, ftruncateSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { test } from 'uvu';
import { ByteSender } from '../../../plugins/transfers';
import { type Nginx, startFront } from '../../support/nginx';
import { startServer, type TestServer } from '../../support/server';
import { eventually, labClient, pcGet } from './support';

/**
 * Boot files with `transfers.handoff: nginx`: ogserve decides, the nginx of the shipped
 * packaging/nginx/ogserve.conf sends the bytes and tells ogserve how each transfer went.
 */
let s: TestServer;
let nginx: Nginx;
/** 100,000 bytes whose values say their position (mod 251). */
const kernel = Buffer.from(Array.from({ length: 100_000 }, (_, i) => i % 251));
const heard: Record<string, unknown>[] = [];
const mac = 'aa:bb:cc:dd:ee:01';

test.before(async () => {
  s = await startServer({
    config: {
      transfers: { handoff: 'nginx', handoff_log_port: 0 },
      // The PC's own address reaches ogserve in X-Forwarded-For, from the nginx on loopback.
      rest: { trusted_proxies: ['127.0.0.1'] },
      boot: { allow: ['127.0.0.0/29'] },
    },
  });
  await labClient(s);
  s.app.events.on('test', 'boot.stage', (payload) => void heard.push(payload));
  const live = path.join(s.dir, 'tftpboot', 'ogLive');
  mkdirSync(live, { recursive: true });
  writeFileSync(path.join(live, 'ogvmlinuz'), kernel);
  // Too large to finish while its reader stops after the first bytes (sparse: no disk used).
  const root = openSync(path.join(live, 'ogclient.sqfs'), 'w');
  ftruncateSync(root, 2 ** 30);
  closeSync(root);
  nginx = await startFront(s.dir, { upstream: s.port, log: s.app.container.resolve(ByteSender).logPort });
});
test.after(async () => {
  await nginx?.stop();
  await s?.close();
});

test('ogserve answers a file with X-Accel-Redirect and no byte of it; through nginx the PC gets the file and its stage with the bytes nginx sent', async () => {
  const direct = await pcGet(s.port, `/boot/files/ogLive/ogvmlinuz?mac=${mac}`);
  assert.equal(direct.status, 200);
  assert.match(String(direct.headers['x-accel-redirect']), /^\/_ogserve_bytes\/[0-9a-f]{16}\/.+\/ogLive\/ogvmlinuz$/);
  assert.equal(direct.body.length, 0, 'ogserve sends none of the bytes');
  heard.length = 0;
  const r = await pcGet(nginx.port, `/boot/files/ogLive/ogvmlinuz?mac=${mac}`);
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body, kernel);
  assert.equal(r.headers['content-type'], 'application/octet-stream');
  assert.equal(r.headers['cache-control'], 'no-cache');
  assert.ok(r.headers.etag, 'nginx gives the file its validators');
  await eventually(() => heard.some((e) => e.stage === 'kernel'), 'the kernel stage told from nginx log line');
  const stage = heard.find((e) => e.stage === 'kernel')!;
  assert.equal(stage.client, '192.168.1.10');
  assert.equal(stage.bytes, kernel.length);
  assert.equal(stage.cut_short, false);
});

test('nginx answers ranges, validators and HEAD as RFC 9110 says; only a body is a stage', async () => {
  const part = await pcGet(nginx.port, `/boot/files/ogLive/ogvmlinuz?mac=${mac}`, { headers: { Range: 'bytes=10-19' } });
  assert.equal(part.status, 206);
  assert.equal(part.headers['content-range'], `bytes 10-19/${kernel.length}`);
  assert.deepEqual(part.body, kernel.subarray(10, 20));
  const none = await pcGet(nginx.port, '/boot/files/ogLive/ogvmlinuz', { headers: { Range: `bytes=${kernel.length}-` } });
  assert.equal(none.status, 416);
  const again = await pcGet(nginx.port, '/boot/files/ogLive/ogvmlinuz', { headers: { 'If-None-Match': String(part.headers.etag) } });
  assert.equal(again.status, 304);
  heard.length = 0;
  const head = await pcGet(nginx.port, `/boot/files/ogLive/ogvmlinuz?mac=${mac}`, { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.headers['content-length'], String(kernel.length));
  const probe = await pcGet(nginx.port, `/boot/files/ogLive/ogvmlinuz?mac=${mac}`, { headers: { Range: 'bytes=0-0' } });
  assert.equal(probe.status, 206);
  await eventually(() => heard.length === 1, 'the one-byte body told');
  assert.equal(heard[0]!.bytes, 1, 'the HEAD, 304 and 416 told nothing');
});

test('ogserve still decides: path tricks, a file outside its folders and an address outside boot.allow never reach a byte', async () => {
  for (const url of ['/boot/files/../../etc/passwd', '/boot/files/ogLive/%2e%2e/%2e%2e/etc/passwd', '/boot/files/ogLive/missing']) {
    const r = await pcGet(nginx.port, url);
    assert.ok(r.status === 400 || r.status === 404, `${url}: ${r.status}`);
    assert.doesNotMatch(r.text, /root:/);
  }
  const internal = await pcGet(nginx.port, '/_ogserve_bytes/0123456789abcdef/etc/passwd');
  assert.equal(internal.status, 404, 'the internal location is reached only through ogserve');
  assert.doesNotMatch(internal.text, /root:/);
  const outside = await pcGet(nginx.port, '/boot/files/ogLive/ogvmlinuz', { from: '127.0.0.9' });
  assert.equal(outside.status, 403, 'the PC address nginx passes on is the one boot.allow checks');
});

test('a PC that goes after the first bytes is told cut short', async () => {
  heard.length = 0;
  await new Promise<void>((resolve, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port: nginx.port, path: `/boot/files/ogLive/ogclient.sqfs?mac=${mac}`, agent: false },
      (res) => {
        assert.equal(res.statusCode, 200);
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      },
    );
    req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
  });
  await eventually(() => heard.some((e) => e.stage === 'root'), 'the root image stage told', 15_000);
  const stage = heard.find((e) => e.stage === 'root')!;
  assert.equal(stage.cut_short, true);
  assert.ok(Number(stage.bytes) < 2 ** 30, `${stage.bytes} bytes of ${2 ** 30}`);
});

test.run();
