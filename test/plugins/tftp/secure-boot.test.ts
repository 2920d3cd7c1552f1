import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { TftpListener } from '../../../plugins/tftp';
import { addCenter, addClient, addRoom } from '../../support/fixtures';
import { startServer } from '../../support/server';
import { curlTftp } from '../../support/tftp-clients';

/**
 * Secure Boot per room and PC over TFTP: a Secure Boot PC asking for iPXE gets Debian's
 * Microsoft-signed shim instead, GRUB's first config loads the PC's own GRUB file, and the
 * PCs set to an ogLive whose kernel is not signed are listed (the console warns of them).
 */
const shim = '/usr/lib/shim/shimx64.efi.signed';
const ipxe = '/usr/lib/ipxe/snponly.efi';
const signedKernel = '/usr/lib/shim/mmx64.efi.signed';

test('a room set to Secure Boot: its PCs asking for iPXE get shim, a PC set off in it gets iPXE, another room iPXE; GET /tftp/secure-boot lists them and the unsigned ogLive', async () => {
  for (const file of [shim, ipxe, signedKernel])
    if (!existsSync(file)) return void console.log(`  skipped: ${file} missing (shim-signed, ipxe; .ci/run installs them)`);
  const s = await startServer({ config: { plugins: ['+tftp'], tftp: { ip: '127.0.0.1', port: 0, requests_per_minute: 0 } } });
  try {
    const port = s.app.container.resolve(TftpListener).port;
    const center = await addCenter(s);
    const lab = await addRoom(s, center, 'Windows 11 lab');
    const other = await addRoom(s, center, 'Old PCs');
    const live = path.join(s.dir, 'tftpboot');
    for (const [name, kernel] of [
      ['ogLive-signed', signedKernel],
      ['ogLive-unsigned', ipxe],
    ] as const) {
      mkdirSync(path.join(live, name), { recursive: true });
      copyFileSync(kernel, path.join(live, name, 'ogvmlinuz'));
    }
    await addClient(s, lab, '127.0.78.1', '52:54:00:00:78:01', { livedir: 'ogLive-signed' });
    await addClient(s, lab, '127.0.78.2', '52:54:00:00:78:02', { livedir: 'ogLive-unsigned' });
    await addClient(s, lab, '127.0.78.3', '52:54:00:00:78:03', { livedir: 'ogLive-unsigned' });
    await addClient(s, other, '127.0.78.4', '52:54:00:00:78:04', { livedir: 'ogLive-unsigned' });

    let r = await s.post('/tftp/secure-boot', { rooms: [lab], secure_boot: true });
    assert.equal(r.status, 200, r.text);
    r = await s.post('/tftp/secure-boot', { clients: ['127.0.78.3', '10.9.9.9'], secure_boot: false });
    assert.deepEqual(r.body.unknown, ['10.9.9.9'], 'addresses no PC has');
    assert.deepEqual((await s.post('/tftp/secure-boot', { rooms: [999], secure_boot: true })).body.field, 'rooms');
    assert.deepEqual((await s.get('/tftp/secure-boot')).body, {
      rooms: [{ id: lab, name: 'Windows 11 lab' }],
      clients: [{ client: '127.0.78.3', secure_boot: false }],
      unsigned: [{ client: '127.0.78.2', livedir: 'ogLive-unsigned', problem: 'no signature' }],
    });

    const fetch = async (from: string, name: string) => {
      const out = path.join(s.dir, `got-${from}`);
      const run = await curlTftp(port, name, out, { from });
      assert.equal(run.code, 0, `${from} ${name}: ${run.output}`);
      return readFileSync(out);
    };
    assert.ok((await fetch('127.0.78.1', 'snponly.efi')).equals(readFileSync(shim)), 'a Secure Boot PC asking for snponly.efi gets shim');
    assert.ok((await fetch('127.0.78.1', 'ipxe.efi')).equals(readFileSync(shim)), 'and for ipxe.efi');
    assert.ok((await fetch('127.0.78.3', 'snponly.efi')).equals(readFileSync(ipxe)), 'a PC set off in that room gets iPXE');
    assert.ok((await fetch('127.0.78.4', 'snponly.efi')).equals(readFileSync(ipxe)), 'a PC of another room gets iPXE');
    assert.ok((await fetch('127.0.78.1', 'undionly.kpxe')).length > 0, 'BIOS PXE is left alone');

    // GRUB's first config: ogserve's, loading the PC's own file; a site's own file wins.
    const stub = (await fetch('127.0.78.1', 'grub/grub.cfg')).toString();
    assert.match(stub, /^configfile \$prefix\/01-\$net_default_mac$/m);
    writeFileSync(path.join(live, 'grub', 'grub.cfg'), 'set timeout=5\n');
    assert.equal((await fetch('127.0.78.1', 'grub/grub.cfg')).toString(), 'set timeout=5\n', "the site's own grub.cfg");

    // Back to its room's setting; the room off.
    await s.post('/tftp/secure-boot', { clients: ['127.0.78.3'], secure_boot: null });
    await s.post('/tftp/secure-boot', { rooms: [lab], secure_boot: false });
    assert.deepEqual((await s.get('/tftp/secure-boot')).body, { rooms: [], clients: [], unsigned: [] });
    assert.ok((await fetch('127.0.78.1', 'snponly.efi')).equals(readFileSync(ipxe)), 'off again: iPXE');
  } finally {
    await s.close();
  }
});

test.run();
