// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { startServer, type TestServer } from '../../support/server';
import { eventually, labClient, metricValue, pcGet } from './support';

const bundled = path.resolve(__dirname, '../../../../templates/ipxe');
let s: TestServer;
let site: string;

test.before(async () => {
  // A site's folder: the bundled templates but mode 13's, and one of its own.
  site = mkdtempSync(path.join(tmpdir(), 'ogserve-ipxe-'));
  cpSync(bundled, site, { recursive: true });
  rmSync(path.join(site, '13.ejs'));
  writeFileSync(path.join(site, 'ogLive.ejs'), '#!ipxe\necho site ogLive <%- oglivedir %> <%- client ? client.ip : "unknown" %>\n');
  s = await startServer({
    config: { boot: { templates_dir: site, unknown_client: 'ogLive', scripts_per_minute: 3, refusals_log_s: 1 } },
  });
  await labClient(s);
});
test.after(async () => {
  await s.close();
  rmSync(site, { recursive: true, force: true });
});

test("a site's templates_dir replaces the bundled scripts; unknown_client names the mode of unknown PCs", async () => {
  const known = await pcGet(s.port, '/boot/ipxe?mac=aa:bb:cc:dd:ee:01', { from: '127.0.0.2' });
  assert.equal(known.text, '#!ipxe\necho site ogLive ogLive 192.168.1.10\n');
  const unknown = await pcGet(s.port, '/boot/ipxe?mac=02:00:00:00:00:99', { from: '127.0.0.2' });
  assert.equal(unknown.text, '#!ipxe\necho site ogLive ogLive unknown\n');
});

test('a mode without an iPXE template: a 200 script that says so on the screen and leaves for the next boot device; the start log named it', async () => {
  assert.equal((await s.post('/mode', { clients: ['192.168.1.10'], mode: '13' })).status, 200);
  const r = await pcGet(s.port, '/boot/ipxe/aa-bb-cc-dd-ee-01', { from: '127.0.0.3' });
  assert.equal(r.status, 200, r.text);
  assert.equal(
    r.text,
    "#!ipxe\necho ogserve: no iPXE script for boot mode '13' (aa:bb:cc:dd:ee:01); ask the administrator\nsleep 10\nexit\n",
  );
  assert.ok(s.logs.some((l) => l.msg.startsWith('boot modes without an iPXE template') && JSON.stringify(l.modes) === '["13"]'));
  // Added without a restart: served at once.
  writeFileSync(path.join(site, '13.ejs'), '#!ipxe\nexit\n');
  assert.equal((await pcGet(s.port, '/boot/ipxe/aa-bb-cc-dd-ee-01', { from: '127.0.0.3' })).text, '#!ipxe\nexit\n');
});

test('a template that fails (a mistake in a site template) is a 200 script saying so, logged', async () => {
  assert.equal((await s.post('/mode', { clients: ['192.168.1.10'], mode: 'ogLive' })).status, 200);
  writeFileSync(path.join(site, 'ogLive.ejs'), '#!ipxe\n<%- no_such_variable %>\n');
  const r = await pcGet(s.port, '/boot/ipxe?mac=aabbccddee01', { from: '127.0.0.6' });
  assert.equal(r.status, 200);
  assert.equal(r.text, "#!ipxe\necho ogserve: the iPXE script of boot mode 'ogLive' failed; ask the administrator\nsleep 10\nexit\n");
  assert.ok(s.logs.some((l) => l.level === 'error' && l.msg.startsWith("iPXE template of mode 'ogLive' failed")));
});

test('scripts per source address are limited: past boot.scripts_per_minute a 429 #!ipxe script with Retry-After; other addresses go on', async () => {
  for (let i = 0; i < 3; i++) assert.equal((await pcGet(s.port, '/boot/ipxe?mac=aabbccddee01', { from: '127.0.0.4' })).status, 200);
  const refused = await pcGet(s.port, '/boot/ipxe?mac=aabbccddee01', { from: '127.0.0.4' });
  assert.equal(refused.status, 429);
  assert.match(String(refused.headers['retry-after']), /^[1-9][0-9]?$/);
  assert.match(refused.text, /^#!ipxe\necho ogserve: too many boot requests from 127\.0\.0\.4; try again in [0-9]+ s\n/);
  // A bad MAC counts too: the limit is on requests, not on good ones.
  assert.equal((await pcGet(s.port, '/boot/ipxe?mac=bad', { from: '127.0.0.4' })).status, 429);
  assert.equal((await pcGet(s.port, '/boot/ipxe?mac=aabbccddee01', { from: '127.0.0.5' })).status, 200);
  // Counted, and summed up in the log rather than a line each.
  assert.equal(await metricValue(s, 'ogserve_boot_refused_total', { reason: 'too_many_scripts' }), 2);
  await eventually(
    () => s.logs.some((l) => l.level === 'warn' && (l.refused as Record<string, number> | undefined)?.['429 too_many_scripts'] === 2),
    'the summary line',
    500,
  );
});

test.run();
