// Engine-independent: runs once, on SQLite.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'uvu';
import { freePort } from '../../support/child-server';
import { addClient, macFor } from '../../support/fixtures';
import { bootFiles, dhcpSite, offerOf } from './helpers';

test('a PC added through REST is offered its address and the boot file of its firmware: BIOS, UEFI, then iPXE', async () => {
  const site = await dhcpSite();
  try {
    const room = await site.room('Lab 1', '127.0.9', { dns: '127.0.0.53' });
    const mac = macFor(0x901);
    await addClient(site.s, room, '127.0.9.10', mac);
    await site.inStep();
    const pc = { giaddr: '127.0.9.254', mac };

    const bios = await offerOf(site, { ...pc, arch: 0 }, '127.0.9.10', 5000);
    assert.equal(bios.file, bootFiles.bios, 'BIOS (option 93 = 0)');
    assert.equal(bios.siaddr, '127.0.0.1', 'next-server');
    assert.deepEqual([...(bios.options.get(3) ?? [])], [127, 0, 9, 1], "the room's router");
    assert.deepEqual([...(bios.options.get(6) ?? [])], [127, 0, 0, 53], "the room's DNS");

    const uefi = await offerOf(site, { ...pc, arch: 7 }, '127.0.9.10');
    assert.equal(uefi.file, bootFiles.uefi, 'UEFI x64 (option 93 = 7)');
    const uefi9 = await offerOf(site, { ...pc, arch: 9 }, '127.0.9.10');
    assert.equal(uefi9.file, bootFiles.uefi, 'UEFI x64 (option 93 = 9)');

    const ipxe = await offerOf(site, { ...pc, arch: 7, userClass: 'iPXE' }, '127.0.9.10');
    assert.equal(ipxe.file, bootFiles.ipxe, 'iPXE (user class, option 77), although it sends option 93 too');

    const status = await site.status();
    assert.deepEqual(status.differences, { missing: [], extra: [], different: [] });
  } finally {
    await site.close();
  }
});

test('a PC moved to another room, or given another address, through REST is offered the new address within a second; deleted, its reservation goes', async () => {
  const site = await dhcpSite();
  try {
    const first = await site.room('Lab 1', '127.0.9');
    const second = await site.room('Lab 2', '127.0.10');
    const mac = macFor(0x902);
    const id = await addClient(site.s, first, '127.0.9.11', mac);
    await offerOf(site, { giaddr: '127.0.9.254', mac, arch: 0 }, '127.0.9.11', 5000);

    const updated = await site.s.post('/client/update', { id, ip: '127.0.9.12' });
    assert.equal(updated.status, 200, updated.text);
    await offerOf(site, { giaddr: '127.0.9.254', mac, arch: 0 }, '127.0.9.12');

    const moved = await site.s.post('/client/update', { id, ip: '127.0.10.12', room: second });
    assert.equal(moved.status, 200, moved.text);
    await offerOf(site, { giaddr: '127.0.10.254', mac, arch: 0 }, '127.0.10.12');
    const status = await site.inStep();
    assert.deepEqual(status.differences, { missing: [], extra: [], different: [] });

    const deleted = await site.s.post('/client/delete', { clients: ['127.0.10.12'] });
    assert.equal(deleted.status, 200, deleted.text);
    await site.inStep();
    const config = (await site.kea.command('config-get')).arguments.Dhcp4;
    const reserved = config.subnet4.flatMap((s: { reservations: { 'hw-address': string }[] }) =>
      s.reservations.map((r) => r['hw-address']),
    );
    assert.ok(!reserved.includes('00:00:00:00:09:02'), "a deleted PC's reservation is gone");
  } finally {
    await site.close();
  }
});

test("with the boot plugin on and no iPXE or HTTP boot file configured, iPXE is offered the boot plugin's script URL, UEFI HTTP boot its snponly.efi URL; a firmware without a file gets none", async () => {
  const port = await freePort();
  const site = await dhcpSite({
    server: { config: { rest: { port }, plugins: ['inventory', 'pxe-modes', 'live', 'transfers', 'boot', 'dhcp'] } },
    dhcp: { boot_files: { bios: '', uefi: 'snponly.efi', ipxe: '' } },
  });
  try {
    const room = await site.room('Lab 1', '127.0.9');
    const mac = macFor(0x903);
    await addClient(site.s, room, '127.0.9.13', mac);
    await site.inStep();
    const ipxe = await offerOf(site, { giaddr: '127.0.9.254', mac, arch: 0, userClass: 'iPXE' }, '127.0.9.13', 5000);
    // iPXE fills in the placeholder itself.
    const placeholder = ['$', '{mac}'].join('');
    assert.equal(ipxe.file, `http://127.0.0.1:${port}/boot/ipxe?mac=${placeholder}`, "the boot plugin's script URL");
    const served = await fetch(ipxe.file.replace(placeholder, mac));
    assert.equal(served.status, 200);
    assert.match(await served.text(), /^#!ipxe/);
    const bios = await offerOf(site, { giaddr: '127.0.9.254', mac, arch: 0 }, '127.0.9.13');
    assert.equal(bios.file, '', 'boot_files.bios is empty: no boot file, the address all the same');

    // UEFI HTTP boot: the first stage's URL, the offer naming the vendor class as UEFI requires; no TFTP.
    const http = await offerOf(
      site,
      { giaddr: '127.0.9.254', mac, arch: 16, vendorClass: 'HTTPClient:Arch:00016:UNDI:003001' },
      '127.0.9.13',
    );
    assert.equal(http.file, `http://127.0.0.1:${port}/boot/files/snponly.efi`, "the boot plugin's URL of snponly.efi");
    assert.equal(http.options.get(60)?.toString('latin1'), 'HTTPClient', 'option 60 HTTPClient in the offer');
    const loader = await fetch(http.file);
    assert.equal(loader.status, existsSync('/usr/lib/ipxe/snponly.efi') ? 200 : 404, "the boot plugin serves Debian's snponly.efi there");
    const uefi = await offerOf(site, { giaddr: '127.0.9.254', mac, arch: 7 }, '127.0.9.13');
    assert.deepEqual([uefi.file, uefi.options.has(60)], ['snponly.efi', false], 'UEFI PXE: the file over TFTP, no HTTPClient');
  } finally {
    await site.close();
  }
});

test.run();
