// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { cpioArchive } from '../../support/cpio';
import { addCenter, addClient, addRoom } from '../../support/fixtures';
import { type NetnsLab, labNet, labUnavailable, startNetnsLab } from '../../support/netns-lab';
import { type Pc, ovmf, startPc } from '../../support/qemu-pc';
import { makeTestDir, removeTestStore, startServer, type TestServer } from '../../support/server';
import { vmImage } from '../../support/vm-image';

/**
 * Real PCs booting from ogserve's own TFTP and HTTP: qemu (TCG) on a bridge in a network
 * namespace the test makes, with a private Kea that the dhcp plugin keeps (its classes give
 * each firmware its first stage) and ogserve running in that namespace. UEFI PCs run OVMF
 * with Secure Boot on and Microsoft's keys; the BIOS PC runs SeaBIOS. Each case is one boot
 * (about a minute of TCG for the whole Secure Boot chain).
 *
 * The ogLive is Debian's signed cloud kernel with an initramfs whose first process prints
 * the kernel's Secure Boot lines on the serial port and powers off; a copy of the kernel with
 * one byte changed is another ogLive.
 */

const unavailable = labUnavailable();
const needed = [
  ['/usr/bin/qemu-system-x86_64', 'qemu-system-x86'],
  [ovmf.code, 'ovmf'],
  ['/usr/lib/shim/shimx64.efi.signed', 'shim-signed'],
  ['/usr/lib/grub/x86_64-efi-signed/grubnetx64.efi.signed', 'grub-efi-amd64-signed'],
  ['/usr/lib/ipxe/undionly.kpxe', 'ipxe'],
  ['/usr/sbin/kea-dhcp4', 'kea-dhcp4-server'],
  ['/usr/sbin/kea-ctrl-agent', 'kea-ctrl-agent'],
  ['/usr/bin/socat', 'socat'],
] as const;

const pcs = {
  secure: { ip: `${labNet.prefix}.11`, mac: '52:54:00:5b:00:0a' },
  unsignedLoader: { ip: `${labNet.prefix}.12`, mac: '52:54:00:5b:00:0b' },
  changedKernel: { ip: `${labNet.prefix}.13`, mac: '52:54:00:5b:00:0c' },
  bios: { ip: `${labNet.prefix}.14`, mac: '52:54:00:5b:00:0d' },
};

/** The ogLive's first process: the kernel's Secure Boot lines to the serial port, then off. */
const init = `#!/bin/sh
/bin/busybox mount -t devtmpfs dev /dev
/bin/busybox mount -t proc proc /proc
/bin/busybox dmesg | /bin/busybox grep -i -e 'secure boot' -e 'locked down' > /dev/ttyS0
echo "vm: ogLive up" > /dev/ttyS0
/bin/busybox poweroff -f
`;

let lab: NetnsLab | undefined;
let dir = '';
let kernelBytes = 0;

interface Stage {
  stage: string;
  bytes?: number;
  cut_short?: boolean;
}

async function lastBoot(ip: string): Promise<Stage[]> {
  const r = await lab!.get(`/boot/timeline?client=${ip}&boots=1`);
  assert.equal(r.status, 200, r.text);
  return (r.body.boots[0]?.stages ?? []) as Stage[];
}

/** The lab's boot of one PC: a deadline for what its screen must show, the screen in any failure. */
async function boot(name: string, options: Omit<Parameters<typeof startPc>[1], 'name'>, run: (pc: Pc) => Promise<void>): Promise<void> {
  const started = Date.now();
  const pc = await startPc(lab!, { ...options, name });
  try {
    await run(pc);
  } catch (error) {
    const transfers = lab!
      .logs()
      .filter((l) => /TFTP transfer/.test(l.msg))
      .map((l) => l.msg);
    (error as Error).message += `\n--- TFTP transfers: ${transfers.join('; ')}\n--- the screen:\n${pc.screen().slice(-4000)}`;
    throw error;
  } finally {
    await pc.stop();
    console.log(`  ${name}: ${Math.round((Date.now() - started) / 1000)} s`);
  }
}

test.before(async () => {
  if (unavailable) return;
  const missing = needed.filter(([file]) => !existsSync(file)).map(([, pkg]) => pkg);
  if (missing.length > 0) throw new Error(`the VM boot tests need Debian's ${missing.join(', ')} (.ci/run installs them)`);
  const image = vmImage();
  dir = makeTestDir();
  // The state directory and its config, as a test server writes them; then ogserve runs in the namespace on it.
  const first: TestServer = await startServer({ dir });
  await first.close();
  const live = path.join(dir, 'tftpboot');
  const initrd = Buffer.concat([readFileSync(image.initrd), cpioArchive({ init })]);
  for (const name of ['ogLive-signed', 'ogLive-changed']) {
    mkdirSync(path.join(live, name), { recursive: true });
    copyFileSync(image.kernel, path.join(live, name, 'ogvmlinuz'));
    writeFileSync(path.join(live, name, 'oginitrd.img'), initrd);
  }
  const changed = readFileSync(path.join(live, 'ogLive-changed', 'ogvmlinuz'));
  changed[changed.length >> 1] ^= 0xff;
  writeFileSync(path.join(live, 'ogLive-changed', 'ogvmlinuz'), changed);
  kernelBytes = statSync(image.kernel).size;

  lab = await startNetnsLab(dir, { plugins: ['+tftp', '+dhcp'] });
  const s = lab as unknown as TestServer;
  const center = await addCenter(s);
  const secureRoom = await addRoom(s, center, 'Windows 11 lab', labNet.netmask, { gateway: labNet.server });
  const otherRoom = await addRoom(s, center, 'iPXE lab', labNet.netmask, { gateway: labNet.server });
  await addClient(s, secureRoom, pcs.secure.ip, pcs.secure.mac, { livedir: 'ogLive-signed', boot: 'ogLive' });
  await addClient(s, otherRoom, pcs.unsignedLoader.ip, pcs.unsignedLoader.mac, { livedir: 'ogLive-signed', boot: 'ogLive' });
  await addClient(s, secureRoom, pcs.changedKernel.ip, pcs.changedKernel.mac, { livedir: 'ogLive-changed', boot: 'ogLive' });
  await addClient(s, otherRoom, pcs.bios.ip, pcs.bios.mac, { boot: '10' });
  const set = await lab.post('/tftp/secure-boot', { rooms: [secureRoom], secure_boot: true });
  assert.equal(set.status, 200, set.text);
  assert.deepEqual(set.body.unsigned, [
    { client: pcs.changedKernel.ip, livedir: 'ogLive-changed', problem: 'changed since it was signed (its digest differs)' },
  ]);
  // Kea in step with the inventory: the four reservations and the boot classes.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const status = (await lab.get('/dhcp/status')).body;
    if (status?.in_step) break;
    if (Date.now() > deadline) throw new Error(`Kea never in step: ${JSON.stringify(status)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
});

test.after(async () => {
  await lab?.close();
  if (dir) await removeTestStore(dir);
});

test('(a) Secure Boot on: the PC gets shim over TFTP, shim loads the signed GRUB, GRUB its own file, then the signed kernel, which says Secure Boot is enabled', async (context) => {
  if (unavailable) return void console.log(`  skipped (${context.__test__}): ${unavailable}`);
  await boot('secure', { firmware: 'uefi-secure-boot', mac: pcs.secure.mac }, async (pc) => {
    await pc.waitFor(/vm: ogLive up/, "the ogLive's first process");
    assert.match(pc.screen(), /secureboot: Secure boot enabled/, "the kernel's Secure Boot line");
    assert.match(pc.screen(), /Kernel is locked down from EFI Secure Boot/);
  });
  const stages = await lastBoot(pcs.secure.ip);
  assert.deepEqual(
    stages.map(({ stage, bytes, cut_short }) => [stage, stage === 'kernel' ? bytes : undefined, cut_short]),
    [
      ['loader', undefined, false],
      ['loader', undefined, false],
      ['loader', undefined, false],
      ['script', undefined, false],
      ['kernel', kernelBytes, false],
      ['initrd', undefined, false],
    ],
    'shim, GRUB and its config, the PC own GRUB file, the kernel and initrd, whole, all over TFTP, in one boot',
  );
  const served = lab!
    .logs()
    .filter((l) => /TFTP transfer of .* done/.test(l.msg) && l.client === pcs.secure.ip)
    .map((l) => l.file);
  assert.deepEqual(served, [
    'shimx64.efi',
    'grubx64.efi',
    'grub/grub.cfg',
    `grub/01-${pcs.secure.mac}`,
    'ogLive-signed/ogvmlinuz',
    'ogLive-signed/oginitrd.img',
  ]);
});

test('(b) Secure Boot on, a PC of a room without it gets the unsigned iPXE: the firmware refuses it', async (context) => {
  if (unavailable) return void console.log(`  skipped (${context.__test__}): ${unavailable}`);
  await boot('unsigned-loader', { firmware: 'uefi-secure-boot', mac: pcs.unsignedLoader.mac }, async (pc) => {
    await pc.waitFor(/Access Denied/, "the firmware's refusal");
  });
  assert.deepEqual(
    (await lastBoot(pcs.unsignedLoader.ip)).map((s) => s.stage),
    ['loader'],
    'snponly.efi sent, nothing after it',
  );
});

test('(c) a kernel with one byte changed: GRUB refuses it (shim checks its signature)', async (context) => {
  if (unavailable) return void console.log(`  skipped (${context.__test__}): ${unavailable}`);
  await boot('changed-kernel', { firmware: 'uefi-secure-boot', mac: pcs.changedKernel.mac }, async (pc) => {
    await pc.waitFor(/bad shim signature/, "GRUB's refusal");
    assert.doesNotMatch(pc.screen(), /vm: ogLive up/);
  });
  const stages = await lastBoot(pcs.changedKernel.ip);
  assert.deepEqual(
    stages
      .filter((s) => s.stage !== 'loader')
      .map((s) => [s.stage, s.bytes === undefined ? undefined : s.stage === 'kernel' ? s.bytes : 'some']),
    [
      ['script', 'some'],
      ['kernel', kernelBytes],
    ],
    'the kernel fetched whole, then refused: no initrd',
  );
});

test('(d) a BIOS PC (SeaBIOS) gets undionly.kpxe over TFTP, then iPXE its script over HTTP', async (context) => {
  if (unavailable) return void console.log(`  skipped (${context.__test__}): ${unavailable}`);
  await boot('bios', { firmware: 'bios', mac: pcs.bios.mac }, async (pc) => {
    // qemu's network ROMs are all iPXE, which says so in its DHCP request (user class iPXE)
    // and would be given the script at once: at its prompt it is told to send another user
    // class for its DHCP, and so asks as any PXE ROM does; then, its own class back (the
    // iPXE it loads reads the ROM's settings), it boots the file DHCP named, as its autoboot would.
    await pc.waitFor(/Press Ctrl-B for the iPXE command line/, "the ROM's prompt", 60_000);
    await pc.type('\x02');
    await pc.waitFor(/iPXE> $/, 'the iPXE shell', 30_000);
    // One command at a time: iPXE reads no keys while a command runs.
    for (const command of ['set user-class PXEClient', 'dhcp', 'clear user-class']) {
      const prompts = pc.screen().split('iPXE> ').length;
      await pc.type(`${command}\n`);
      await pc.waitFor(new RegExp(`(iPXE> [^]*){${prompts}}$`), `the prompt after '${command}'`, 60_000);
    }
    // biome-ignore lint/suspicious/noTemplateCurlyInString: iPXE fills in its settings itself.
    await pc.type('chain tftp://${next-server}/${filename}\n');
    await pc.waitFor(/undionly\.kpxe.*ok/s, 'undionly.kpxe fetched over TFTP');
    await pc.waitFor(/ogserve: booting from the first hard disk/, "mode 10's script, over HTTP");
  });
  const stages = await lastBoot(pcs.bios.ip);
  assert.deepEqual(
    stages.map((s) => s.stage),
    ['loader', 'script'],
    'undionly.kpxe over TFTP, then the script: one boot',
  );
});

test.run();
