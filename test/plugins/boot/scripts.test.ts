// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { startServer, type TestServer } from '../../support/server';
import { labClient, pcGet } from './support';

const MAC = 'aa:bb:cc:dd:ee:01';
const UEFI_FILE = '01-aa:bb:cc:dd:ee:01';
const FILES = 'http://10.0.2.100/boot/files';
let s: TestServer;

test.before(async () => {
  s = await startServer({ config: { boot: { public_url: 'http://10.0.2.100/' }, 'pxe-modes': { lang: 'es_ES.UTF-8' } } });
  await labClient(s);
});
test.after(() => s.close());

/** The arguments of the GRUB file's `linux` line after the kernel, or undefined when it starts none. */
function grubKernelArgs(): string | undefined {
  const grub = readFileSync(path.join(s.dir, 'tftpboot', 'grub', UEFI_FILE), 'utf8');
  return /^linux \S+ (.*)$/m.exec(grub)?.[1];
}

test('every mode GET /mode lists has a script for a known client, with the kernel parameters of its GRUB file', async () => {
  const { modes } = (await s.get('/mode')).body as { modes: string[] };
  assert.ok(modes.length >= 8, 'the shipped modes');
  for (const mode of modes) {
    assert.equal((await s.post('/mode', { clients: ['192.168.1.10'], mode })).status, 200);
    const r = await pcGet(s.port, `/boot/ipxe?mac=${MAC}`);
    assert.equal(r.status, 200, `${mode}: ${r.text}`);
    assert.match(String(r.headers['content-type']), /^text\/plain/);
    assert.equal(r.headers['cache-control'], 'no-store');
    assert.ok(r.text.startsWith('#!ipxe\n'), mode);
    assert.doesNotMatch(r.text, /no iPXE script/, mode);
    const grubArgs = grubKernelArgs();
    const kernel = /^kernel (\S+) initrd=oginitrd\.img (.*?) \|\| goto failed$/m.exec(r.text);
    if (grubArgs === undefined) {
      assert.equal(kernel, null, `${mode}: the GRUB file starts no kernel, nor does the script`);
      assert.match(r.text, /sanboot|chain|exit/, `${mode}: a disk boot`);
      continue;
    }
    assert.ok(kernel, `${mode}: a kernel line in\n${r.text}`);
    assert.equal(kernel[2], grubArgs, `${mode}: the same kernel parameters as the GRUB file`);
    assert.match(grubArgs, /ip=192\.168\.1\.10:127\.0\.0\.1:192\.168\.1\.1:255\.255\.255\.0:pc-1:eth0:none .*ogrepo=192\.168\.1\.4/);
    assert.equal(kernel[1], `${FILES}/ogLive/ogvmlinuz?mac=aabbccddee01`, `${mode}: the kernel under boot.public_url`);
    assert.match(r.text, new RegExp(`^initrd ${FILES}/ogLive/oginitrd\\.img\\?mac=aabbccddee01 `, 'm'));
  }
});

test('every MAC form iPXE can send, in the query or the path, finds the client', async () => {
  assert.equal((await s.post('/mode', { clients: ['192.168.1.10'], mode: 'ogLive' })).status, 200);
  const forms = ['aa:bb:cc:dd:ee:01', 'AA:BB:CC:DD:EE:01', 'aa-bb-cc-dd-ee-01', 'AA-BB-CC-DD-EE-01', 'aabbccddee01', 'AABBCCDDEE01'];
  for (const form of forms) {
    for (const url of [
      `/boot/ipxe?mac=${form}`,
      `/boot/ipxe?mac=${encodeURIComponent(form)}`,
      `/boot/ipxe/${form}`,
      `/boot/ipxe/${encodeURIComponent(form)}`,
    ]) {
      const r = await pcGet(s.port, url);
      assert.equal(r.status, 200, `${url}: ${r.text}`);
      assert.match(r.text, /ogvmlinuz\?mac=aabbccddee01 /, url);
    }
  }
});

test('an unknown MAC gets boot.unknown_client (local by default): the first disk, no client data', async () => {
  const r = await pcGet(s.port, '/boot/ipxe?mac=02:00:00:00:00:99');
  assert.equal(r.status, 200, r.text);
  assert.ok(r.text.startsWith('#!ipxe\n'));
  assert.match(r.text, /sanboot --no-describe --drive 0x80/);
  assert.doesNotMatch(r.text, /kernel|192\.168/);
});

test('a bad or missing MAC is a 400 #!ipxe script that says so, and keeps request text out of the script', async () => {
  for (const url of [
    '/boot/ipxe',
    '/boot/ipxe?mac=',
    '/boot/ipxe?mac=zz:bb:cc:dd:ee:01',
    // An iPXE setting that was not expanded, sent encoded.
    '/boot/ipxe?mac=%24%7Bnet0/mac%7D',
    '/boot/ipxe/aa:bb:cc',
    '/boot/ipxe/%ZZ',
  ]) {
    const r = await pcGet(s.port, url);
    assert.equal(r.status, 400, `${url}: ${r.text}`);
    assert.match(String(r.headers['content-type']), /^text\/plain/);
    assert.ok(r.text.startsWith('#!ipxe\necho ogserve: '), url);
    assert.match(r.text, /is not a MAC address/, url);
    assert.doesNotMatch(r.text.slice('#!ipxe'.length), /\$|\{/, `${url}: nothing iPXE would expand`);
  }
});

test('the scripts need no key, and announce boot.stage script for a known client', async () => {
  const heard: unknown[] = [];
  s.app.events.on('test', 'boot.stage', (payload) => void heard.push(payload));
  const r = await pcGet(s.port, `/boot/ipxe/${MAC}`);
  assert.equal(r.status, 200);
  assert.deepEqual(heard, [{ client: '192.168.1.10', stage: 'script' }]);
});

test.run();
