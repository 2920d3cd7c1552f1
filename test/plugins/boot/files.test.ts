// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, openSync, closeSync, ftruncateSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { startServer, type TestServer } from '../../support/server';
import { eventually, holdTransfer, labClient, metricValue, pcGet } from './support';

let s: TestServer;
let outside: string;
/** 1,000 bytes whose values say their position (mod 251). */
const kernel = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
const heard: Record<string, unknown>[] = [];

test.before(async () => {
  outside = mkdtempSync(path.join(tmpdir(), 'ogserve-boot-outside-'));
  writeFileSync(path.join(outside, 'secret'), 'SECRET');
  mkdirSync(path.join(outside, 'extra'));
  writeFileSync(path.join(outside, 'extra', 'grubx64.efi'), 'GRUB');
  s = await startServer({
    config: {
      boot: { extra_dir: path.join(outside, 'extra'), max_transfers: 2, allow: ['127.0.0.0/30', '::1'], refusals_log_s: 1 },
    },
  });
  await labClient(s);
  s.app.events.on('test', 'boot.stage', (payload) => void heard.push(payload));
  // What oglivecli leaves in live.directory: an image folder, and the default link to it.
  const live = path.join(s.dir, 'tftpboot');
  mkdirSync(path.join(live, 'ogLive-focal-r1'), { recursive: true });
  writeFileSync(path.join(live, 'ogLive-focal-r1', 'ogvmlinuz'), kernel);
  writeFileSync(path.join(live, 'ogLive-focal-r1', '.hidden'), 'HIDDEN');
  symlinkSync('ogLive-focal-r1', path.join(live, 'ogLive'));
  // A root image too large to finish while its reader stops reading (sparse: no disk used).
  const root = openSync(path.join(live, 'ogLive-focal-r1', 'ogclient.sqfs'), 'w');
  ftruncateSync(root, 2 ** 31);
  closeSync(root);
  // Links pointing out of the folder: a file and a directory.
  symlinkSync(path.join(outside, 'secret'), path.join(live, 'escape'));
  symlinkSync(outside, path.join(live, 'out'));
});
test.after(async () => {
  await s.close();
  rmSync(outside, { recursive: true, force: true });
});

test('a kernel is served without a key, through the default link, with ETag and Last-Modified; a boot.stage kernel event names the client', async () => {
  const r = await pcGet(s.port, '/boot/files/ogLive/ogvmlinuz?mac=aa:bb:cc:dd:ee:01');
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body, kernel);
  assert.ok(r.headers.etag, 'an ETag');
  assert.ok(r.headers['last-modified'], 'a Last-Modified date');
  await eventually(() => heard.some((e) => e.stage === 'kernel'), 'the kernel stage announced');
  assert.deepEqual(
    heard.find((e) => e.stage === 'kernel'),
    {
      client: '192.168.1.10',
      stage: 'kernel',
      bytes: 1000,
      ms: (heard.find((e) => e.stage === 'kernel') as { ms: number }).ms,
      cut_short: false,
    },
  );
});

test('If-None-Match with the ETag is a 304 without a body', async () => {
  const first = await pcGet(s.port, '/boot/files/ogLive-focal-r1/ogvmlinuz');
  const again = await pcGet(s.port, '/boot/files/ogLive-focal-r1/ogvmlinuz', { headers: { 'If-None-Match': String(first.headers.etag) } });
  assert.equal(again.status, 304);
  assert.equal(again.body.length, 0);
});

test('a Range request is a 206 with exactly those bytes', async () => {
  const r = await pcGet(s.port, '/boot/files/ogLive/ogvmlinuz', { headers: { Range: 'bytes=100-349' } });
  assert.equal(r.status, 206);
  assert.equal(r.headers['content-range'], 'bytes 100-349/1000');
  assert.deepEqual(r.body, kernel.subarray(100, 350));
});

test('boot.extra_dir is served after live.directory', async () => {
  const r = await pcGet(s.port, '/boot/files/grubx64.efi');
  assert.equal(r.status, 200);
  assert.equal(r.text, 'GRUB');
});

test('nothing outside the folders: dot-dot plain, encoded and double-encoded, links out, dot files, no listings', async () => {
  const tricks = [
    '/boot/files/../../secret',
    '/boot/files/..%2f..%2fsecret',
    '/boot/files/%2e%2e/%2e%2e/secret',
    '/boot/files/%2e%2e%2f%2e%2e%2fsecret',
    '/boot/files/%252e%252e/%252e%252e/secret',
    '/boot/files/%252e%252e%252fsecret',
    '/boot/files/ogLive/..%2f..%2f..%2fsecret',
    '/boot/files/ogLive/%00ogvmlinuz',
    '/boot/files/escape',
    '/boot/files/out/secret',
    '/boot/files/out/extra/grubx64.efi',
    '/boot/files/ogLive/.hidden',
    '/boot/files/ogLive',
    '/boot/files/ogLive/',
    '/boot/files/%ZZ',
  ];
  for (const trick of tricks) {
    const r = await pcGet(s.port, trick);
    assert.ok(r.status === 400 || r.status === 404, `${trick}: ${r.status}`);
    assert.doesNotMatch(r.text, /SECRET|HIDDEN|GRUB|ogvmlinuz"/, trick);
  }
});

test('boot.allow: an address outside the listed networks is refused (403)', async () => {
  const r = await pcGet(s.port, '/boot/files/ogLive/ogvmlinuz', { from: '127.0.0.9' });
  assert.equal(r.status, 403);
  assert.match(r.body.length ? r.text : '', /boot\.allow/);
});

test('a flood of 503s is counted and logged as one warn line per boot.refusals_log_s saying how many and why, without a stack', async () => {
  const held = [
    await holdTransfer(s.port, '/boot/files/ogLive/ogclient.sqfs'),
    await holdTransfer(s.port, '/boot/files/ogLive/ogclient.sqfs'),
  ];
  const from = s.logs.length;
  const counted = await metricValue(s, 'ogserve_boot_refused_total', { reason: 'busy' });
  const started = Date.now();
  const flood = 50;
  for (let i = 0; i < flood; i++) assert.equal((await pcGet(s.port, '/boot/files/ogLive/ogvmlinuz')).status, 503);
  const floodS = (Date.now() - started) / 1000;
  for (const h of held) h.cut();
  assert.equal(await metricValue(s, 'ogserve_boot_refused_total', { reason: 'busy' }), counted + flood);
  const summaries = () => s.logs.slice(from).filter((l) => /boot request\(s\) refused in the last 1 s: /.test(l.msg));
  const busy = () => summaries().reduce((sum, l) => sum + ((l.refused as Record<string, number>)['503 busy'] ?? 0), 0);
  await eventually(() => busy() === flood, 'every 503 in a summary line', 500);
  // One line per interval the flood lasted (it may straddle one more), each without a stack.
  assert.ok(summaries().length <= Math.ceil(floodS) + 1, `${summaries().length} lines for ${floodS} s`);
  for (const line of summaries()) {
    assert.equal(line.level, 'warn');
    assert.equal(line.err, undefined);
    assert.match(line.msg, /503 busy \(2 boot file transfers under way \(boot\.max_transfers\)/);
  }
  assert.deepEqual(
    s.logs.slice(from).filter((l) => l.level === 'error'),
    [],
    'no error line',
  );
  await eventually(async () => (await pcGet(s.port, '/boot/files/ogLive/ogvmlinuz')).status === 200, 'a place free again');
});

test('past boot.max_transfers a 503 with Retry-After; a transfer cut off frees its place and is announced cut short', async () => {
  const held = [
    await holdTransfer(s.port, '/boot/files/ogLive/ogclient.sqfs?mac=aabbccddee01'),
    await holdTransfer(s.port, '/boot/files/ogLive/ogclient.sqfs'),
  ];
  assert.deepEqual(
    held.map((h) => h.status),
    [200, 200],
  );
  const refused = await pcGet(s.port, '/boot/files/ogLive/ogvmlinuz');
  assert.equal(refused.status, 503);
  assert.equal(refused.headers['retry-after'], '5');
  for (const h of held) h.cut();
  await eventually(async () => (await pcGet(s.port, '/boot/files/ogLive/ogvmlinuz')).status === 200, 'a place free again');
  await eventually(() => heard.some((e) => e.stage === 'root'), 'the root stage announced');
  const root = heard.find((e) => e.stage === 'root')!;
  assert.equal(root.client, '192.168.1.10');
  assert.equal(root.cut_short, true);
  assert.ok((root.bytes as number) < 2 ** 31);
});

test.run();
