import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { signatureOf } from '../../../plugins/live';
import { ogserve } from '../../support/process';
import { makeTestDir, removeTestStore, startServer } from '../../support/server';

/**
 * Whether an ogLive's kernel is signed: read from its Authenticode signature by ogserve
 * itself. Debian's signed EFI binaries stand in for kernels (a kernel is a PE file alike):
 * MokManager (shim-signed, signed by Debian), shim (signed by Microsoft), iPXE (unsigned).
 */
const debianSigned = '/usr/lib/shim/mmx64.efi.signed';
const microsoftSigned = '/usr/lib/shim/shimx64.efi.signed';
const unsigned = '/usr/lib/ipxe/snponly.efi';

test('Authenticode signatures read without a tool: the signer, the signature checked, the digest of the file as firmware computes it', () => {
  for (const file of [debianSigned, microsoftSigned, unsigned])
    if (!existsSync(file)) return void console.log(`  skipped: ${file} missing (Debian's shim-signed and ipxe; .ci/run installs them)`);
  const mok = signatureOf(readFileSync(debianSigned));
  assert.deepEqual([mok.signed, mok.signer, mok.issuer], [true, 'Debian Secure Boot Signer 2022 - shim', 'Debian Secure Boot CA']);
  const shim = signatureOf(readFileSync(microsoftSigned));
  assert.equal(shim.signed, true);
  assert.ok(
    shim.signatures.some((s) => s.issuer === 'Microsoft Corporation UEFI CA 2011' && s.verified && s.matches),
    "shim carries Microsoft's 2011 CA signature, checked",
  );
  assert.deepEqual(signatureOf(readFileSync(unsigned)), { signed: false, signatures: [], problem: 'no signature' });
  const changed = Buffer.from(readFileSync(debianSigned));
  changed[changed.length >> 1] ^= 1;
  const verdict = signatureOf(changed);
  assert.deepEqual(
    [verdict.signed, verdict.problem, verdict.signatures[0]?.verified, verdict.signatures[0]?.matches],
    [false, 'changed since it was signed (its digest differs)', true, false],
    'one byte changed: the signature still verifies, the digest it signs is no longer the file',
  );
  assert.deepEqual(signatureOf(Buffer.from('#!ipxe\n')), { signed: false, signatures: [], problem: 'not a PE/COFF file' });
});

test('/live/add and ogserve live install record whether the kernel is signed; GET /live/list tells it, read again when the kernel changes', async () => {
  if (!existsSync(debianSigned)) return void console.log(`  skipped: ${debianSigned} missing (shim-signed)`);
  const dir = makeTestDir();
  try {
    const folder = path.join(dir, 'mounted');
    mkdirSync(folder);
    copyFileSync(debianSigned, path.join(folder, 'ogvmlinuz'));
    writeFileSync(path.join(folder, 'oginitrd.img'), 'initrd');
    writeFileSync(path.join(folder, 'ogclient.sqfs'), 'root');
    const first = await startServer({ dir });
    await first.close();
    const installed = await ogserve(['live', 'install', '--dir', folder, '--name', 'ogLive-signed-r1', '--config', `${dir}/config.json`]);
    assert.equal(installed.code, 0, installed.stderr);
    assert.match(installed.stderr, /its kernel is signed by Debian Secure Boot Signer 2022 - shim\ninstalled ogLive-signed-r1\n$/);

    const s = await startServer({ dir });
    try {
      const live = path.join(dir, 'tftpboot');
      mkdirSync(path.join(live, 'site-image'));
      copyFileSync(unsigned, path.join(live, 'site-image', 'ogvmlinuz'));
      assert.equal((await s.post('/live/add', { name: 'site-image' })).status, 200);
      const listed = async () =>
        Object.fromEntries(
          ((await s.get('/live/list')).body.live as { directory: string; signed: boolean | null; signer: string }[]).map((e) => [
            e.directory,
            [e.signed, e.signer],
          ]),
        );
      assert.deepEqual(await listed(), {
        'ogLive-signed-r1': [true, 'Debian Secure Boot Signer 2022 - shim'],
        'site-image': [false, ''],
      });
      const rows = await s.app.database.query<{ directory: string; signed: unknown }>(
        'select directory, signed from live_kernels order by directory',
      );
      assert.deepEqual(
        rows.map((r) => [r.directory, Boolean(r.signed)]),
        [
          ['ogLive-signed-r1', true],
          ['site-image', false],
        ],
        'both recorded',
      );
      // A kernel replaced by one with a byte changed is no longer signed.
      const kernel = path.join(live, 'ogLive-signed-r1', 'ogvmlinuz');
      const bytes = readFileSync(kernel);
      bytes[bytes.length >> 1] ^= 1;
      writeFileSync(kernel, bytes);
      assert.deepEqual((await listed())['ogLive-signed-r1'], [false, 'Debian Secure Boot Signer 2022 - shim']);
    } finally {
      await s.close();
    }
  } finally {
    await removeTestStore(dir);
  }
});

test.run();
