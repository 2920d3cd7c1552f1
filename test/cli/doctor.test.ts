// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import type { BootReport } from '../../cli/doctor';
import { LOADERS } from '../../plugins/boot';
import { freePort } from '../support/child-server';
import { ogserve } from '../support/process';
import { makeTestDir, removeTestStore, startServer } from '../support/server';
import { freeUdpPort } from '../support/tftp-clients';

/** Where Debian installs each first stage, found on this machine or not: what the report must say. */
const onThisMachine = Object.fromEntries(LOADERS.map((l) => [l.name, l.debian.find((d) => existsSync(d.file))?.file]));
const signedEfi = '/usr/lib/shim/mmx64.efi.signed';

async function doctor(dir: string, config: string): Promise<{ code: number; report: BootReport }> {
  const run = await ogserve(['doctor', 'boot', '--config', config, '--json'], { OGSERVE_STATE_DIR: dir });
  assert.equal(run.stderr, '', 'nothing on stderr');
  return { code: run.code, report: JSON.parse(run.stdout) as BootReport };
}

test('ogserve doctor boot beside a running ogserve with TFTP: the first stages where Debian put them, their signatures, the live kernels, and which PCs can boot', async () => {
  const dir = makeTestDir();
  const [restPort, tftpPort] = [await freePort(), await freeUdpPort()];
  const s = await startServer({ dir, config: { plugins: ['+tftp'], rest: { port: restPort }, tftp: { ip: '127.0.0.1', port: tftpPort } } });
  try {
    const live = path.join(dir, 'tftpboot');
    mkdirSync(path.join(live, 'ogLive-signed'), { recursive: true });
    mkdirSync(path.join(live, 'ogLive-unsigned'), { recursive: true });
    // Stand-ins for kernels: a Debian-signed EFI binary, and an unsigned one.
    if (existsSync(signedEfi)) copyFileSync(signedEfi, path.join(live, 'ogLive-signed', 'ogvmlinuz'));
    writeFileSync(path.join(live, 'ogLive-unsigned', 'ogvmlinuz'), 'MZ not really a kernel');
    const { code, report } = await doctor(dir, path.join(dir, 'config.json'));

    assert.deepEqual(
      report.loaders.map((l) => [l.name, l.source]),
      LOADERS.map((l) => [l.name, onThisMachine[l.name]]),
      'each first stage where Debian installs it on this machine, or not found',
    );
    const shim = report.loaders.find((l) => l.name === 'shimx64.efi')!;
    const grub = report.loaders.find((l) => l.name === 'grubx64.efi')!;
    if (shim.found) assert.deepEqual([shim.signed, shim.issuer], [true, 'Microsoft Corporation UEFI CA 2011'], 'shim signed by Microsoft');
    if (grub.found) assert.deepEqual([grub.signed, grub.signer], [true, 'Debian Secure Boot Signer 2022 - grub2'], 'GRUB signed by Debian');
    assert.equal(report.loaders.find((l) => l.name === 'snponly.efi')?.signed ?? false, false, "Debian's iPXE is not signed");
    assert.deepEqual(
      report.live.map((i) => [i.directory, i.signed]),
      [
        ['ogLive-signed', existsSync(signedEfi)],
        ['ogLive-unsigned', false],
      ],
    );
    assert.deepEqual(report.tftp, {
      plugin: true,
      address: `127.0.0.1:${tftpPort}`,
      answers: true,
      serves_first_stage: !!onThisMachine['undionly.kpxe'],
    });
    assert.equal(report.http.serves_first_stage, !!onThisMachine['snponly.efi'], 'snponly.efi at /boot/files/ (UEFI HTTP boot)');
    const all = Object.values(onThisMachine).every(Boolean);
    assert.deepEqual(
      report.pcs.map((v) => [v.pcs, v.can_boot]),
      [
        ['BIOS', !!onThisMachine['undionly.kpxe']],
        ['UEFI', !!(onThisMachine['snponly.efi'] || onThisMachine['ipxe.efi'])],
        ['UEFI Secure Boot', !!(onThisMachine['shimx64.efi'] && onThisMachine['grubx64.efi'])],
      ],
      JSON.stringify(report.pcs),
    );
    if (all) {
      assert.equal(code, 0, 'every kind of PC can boot');
      assert.match(report.pcs[2]!.how, /ogLive with a signed kernel: ogLive-signed$/);
    }
    const text = await ogserve(['doctor', 'boot', '--config', path.join(dir, 'config.json')], { OGSERVE_STATE_DIR: dir });
    assert.match(text.stdout, /^ {2}UEFI Secure Boot {2}(can|cannot) boot/m, 'the text report names each kind');
  } finally {
    await s.close();
    await removeTestStore(dir);
  }
});

test('ogserve doctor boot on a machine missing pieces: boot.loaders_dir with a BIOS loader and an unsigned shim, no TFTP answering; each missing piece named', async () => {
  const dir = makeTestDir();
  try {
    const loaders = path.join(dir, 'loaders');
    mkdirSync(loaders);
    writeFileSync(path.join(loaders, 'undionly.kpxe'), 'iPXE');
    writeFileSync(path.join(loaders, 'shimx64.efi'), 'MZ unsigned');
    const [restPort, tftpPort] = [await freePort(), await freeUdpPort()];
    const config = path.join(dir, 'site.json');
    writeFileSync(
      config,
      JSON.stringify({
        rest: { ip: '127.0.0.1', port: restPort },
        boot: { loaders_dir: loaders },
        tftp: { ip: '127.0.0.1', port: tftpPort },
      }),
    );
    const { code, report } = await doctor(dir, config);
    assert.equal(code, 1, 'some PCs cannot boot');
    assert.deepEqual(
      report.loaders.map((l) => [l.name, l.found]),
      [
        ['undionly.kpxe', true],
        ['snponly.efi', false],
        ['ipxe.efi', false],
        ['shimx64.efi', true],
        ['grubx64.efi', false],
      ],
      'only what boot.loaders_dir holds',
    );
    assert.deepEqual(report.tftp, { plugin: false, address: `127.0.0.1:${tftpPort}`, answers: false, serves_first_stage: false });
    assert.deepEqual(
      report.pcs.map((v) => [v.pcs, v.can_boot, v.missing]),
      [
        ['BIOS', false, [`nothing answers TFTP at 127.0.0.1:${tftpPort} (enable the tftp plugin: "plugins": ["+tftp"])`]],
        [
          'UEFI',
          false,
          [
            'snponly.efi or ipxe.efi (apt-get install ipxe)',
            `nothing answers TFTP at 127.0.0.1:${tftpPort} (enable the tftp plugin: "plugins": ["+tftp"]), and no UEFI HTTP boot (the boot plugin serving http://127.0.0.1:${restPort}/boot/files/snponly.efi)`,
          ],
        ],
        [
          'UEFI Secure Boot',
          false,
          [
            'a signed shimx64.efi (the one found is not signed)',
            'grubx64.efi (apt-get install grub-efi-amd64-signed)',
            `ogserve's TFTP (the tftp plugin, answering at 127.0.0.1:${tftpPort}): GRUB fetches its config and the ogLive over TFTP`,
          ],
        ],
      ],
    );
  } finally {
    await removeTestStore(dir);
  }
});

test.run();
