// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { closeSync, ftruncateSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { startServer, type TestServer } from '../../support/server';
import { holdTransfer, pcGet } from './support';

let s: TestServer;
/** 1,000 bytes whose values say their position (mod 251). */
const kernel = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
const url = '/boot/files/ogLive/ogvmlinuz';

test.before(async () => {
  // One transfer at once: answers without a body must come while it is taken.
  s = await startServer({ config: { boot: { max_transfers: 1 } } });
  const folder = path.join(s.dir, 'tftpboot', 'ogLive');
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, 'ogvmlinuz'), kernel);
  writeFileSync(path.join(folder, 'empty'), '');
  // Too large to finish while its reader stops reading (sparse: no disk used).
  const root = openSync(path.join(folder, 'ogclient.sqfs'), 'w');
  ftruncateSync(root, 2 ** 31);
  closeSync(root);
});
test.after(() => s.close());

const ranged = (range: string, headers: Record<string, string> = {}) => pcGet(s.port, url, { headers: { Range: range, ...headers } });

test('bytes=5-1 (last before first) is a 416 naming the size in Content-Range and the Range field in its JSON body', async () => {
  const r = await ranged('bytes=5-1');
  assert.equal(r.status, 416);
  assert.equal(r.headers['content-range'], 'bytes */1000');
  const body = JSON.parse(r.text);
  assert.equal(body.error, 'range_not_satisfiable');
  assert.equal(body.field, 'Range');
  assert.match(body.message, /1000 bytes/);
});

test('a suffix range is the end of the file: -1 the last byte, one larger than the file the whole file as a 206', async () => {
  const last = await ranged('bytes=-1');
  assert.equal(last.status, 206);
  assert.equal(last.headers['content-range'], 'bytes 999-999/1000');
  assert.deepEqual(last.body, kernel.subarray(999));
  const larger = await ranged('bytes=-5000');
  assert.equal(larger.status, 206);
  assert.equal(larger.headers['content-range'], 'bytes 0-999/1000');
  assert.deepEqual(larger.body, kernel);
});

test('nothing to send is a 416: a suffix of 0 bytes, a first byte at or past the end, any range of an empty file', async () => {
  for (const range of ['bytes=-0', 'bytes=1000-', 'bytes=1000-1000', 'bytes=99999999999999999999-']) {
    const r = await ranged(range);
    assert.equal(r.status, 416, range);
    assert.equal(r.headers['content-range'], 'bytes */1000', range);
  }
  const empty = await pcGet(s.port, '/boot/files/ogLive/empty', { headers: { Range: 'bytes=0-0' } });
  assert.equal(empty.status, 416);
  assert.equal(empty.headers['content-range'], 'bytes */0');
  const whole = await pcGet(s.port, '/boot/files/ogLive/empty');
  assert.equal(whole.status, 200);
  assert.equal(whole.body.length, 0);
});

test('an open range is from its first byte to the end; a last byte past the end stops at the end', async () => {
  const open = await ranged('bytes=5-');
  assert.equal(open.status, 206);
  assert.equal(open.headers['content-range'], 'bytes 5-999/1000');
  assert.equal(open.headers['content-length'], '995');
  assert.deepEqual(open.body, kernel.subarray(5));
  const past = await ranged('bytes=990-99999999999999999999');
  assert.equal(past.status, 206);
  assert.equal(past.headers['content-range'], 'bytes 990-999/1000');
  assert.deepEqual(past.body, kernel.subarray(990));
  const spaced = await ranged('BYTES = 10-19 ,');
  assert.equal(spaced.status, 206, 'the unit in any case, spaces around the list and an empty element');
  assert.deepEqual(spaced.body, kernel.subarray(10, 20));
});

test('a malformed Range, or one in another unit, is ignored: a 200 with the whole file', async () => {
  for (const range of [
    'bytes=abc',
    'bytes=',
    'bytes=5',
    'bytes=1-2-3',
    'bytes=--1',
    'bytes=-1-',
    'bytes=1 - 2',
    'items=0-5',
    'bytes 0-5',
  ]) {
    const r = await ranged(range);
    assert.equal(r.status, 200, range);
    assert.equal(r.headers['content-range'], undefined, range);
    assert.deepEqual(r.body, kernel, range);
  }
});

test('several ranges are answered with the whole file as a 200 (no multipart), satisfiable or not', async () => {
  for (const range of ['bytes=0-1,3-4', 'bytes=-1,0-0', 'bytes=5-1,7-2']) {
    const r = await ranged(range);
    assert.equal(r.status, 200, range);
    assert.equal(r.headers['content-range'], undefined, range);
    assert.deepEqual(r.body, kernel, range);
  }
});

test("If-Range: the range when it names the file's ETag or its Last-Modified date, else the whole file", async () => {
  const head = await pcGet(s.port, url);
  const etag = String(head.headers.etag);
  const lastModified = String(head.headers['last-modified']);
  assert.match(etag, /^"[0-9a-f-]+"$/, 'a strong entity tag, which If-Range may name');
  for (const validator of [etag, lastModified]) {
    const r = await ranged('bytes=0-9', { 'If-Range': validator });
    assert.equal(r.status, 206, validator);
    assert.deepEqual(r.body, kernel.subarray(0, 10), validator);
  }
  for (const validator of ['"another"', `W/${etag}`, 'Thu, 01 Jan 1970 00:00:00 GMT', 'not a date']) {
    const r = await ranged('bytes=0-9', { 'If-Range': validator });
    assert.equal(r.status, 200, validator);
    assert.deepEqual(r.body, kernel, validator);
  }
});

test('HEAD answers the head a GET would, without a body; Range is for GET only', async () => {
  for (const headers of [{}, { Range: 'bytes=5-1' }, { Range: 'bytes=0-9' }] as Record<string, string>[]) {
    const r = await pcGet(s.port, url, { method: 'HEAD', headers });
    assert.equal(r.status, 200, JSON.stringify(headers));
    assert.equal(r.headers['content-length'], '1000');
    assert.equal(r.headers['accept-ranges'], 'bytes');
    assert.ok(r.headers.etag);
    assert.equal(r.body.length, 0);
  }
  assert.equal((await pcGet(s.port, '/boot/files/ogLive/nothing', { method: 'HEAD' })).status, 404);
});

test('answers without a body take no transfer place: HEAD, 304 and 416 come while the only one is held, a body is a 503', async () => {
  const etag = String((await pcGet(s.port, url)).headers.etag);
  const held = await holdTransfer(s.port, '/boot/files/ogLive/ogclient.sqfs');
  assert.equal(held.status, 200);
  assert.equal((await pcGet(s.port, url, { method: 'HEAD' })).status, 200);
  assert.equal((await pcGet(s.port, url, { headers: { 'If-None-Match': etag } })).status, 304);
  assert.equal((await ranged('bytes=5-1')).status, 416);
  assert.equal((await ranged('bytes=0-9')).status, 503);
  held.cut();
});

test.run();
