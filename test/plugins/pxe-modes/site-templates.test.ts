// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { addCenter, addClient, addRoom } from '../../support/fixtures';
import { startServer } from '../../support/server';
import { biosFile, readIfExists, uefiFile } from './support';

/** A site's template folder, as an existing OpenGnsys install has it (plain reference format). */
function siteTemplates(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-templates-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

const params =
  ' LANG=C ip=192.168.1.10:127.0.0.1::255.255.255.0:pc-192.168.1.10::none group=Room ogrepo= oglive=127.0.0.1 oglog=127.0.0.1 ogshare=127.0.0.1';

test('a template without .ejs is read in the reference format: INFOHOST, vga=<digits>, set ISODIR', async () => {
  const templates = siteTemplates({
    'bios/pxe': '##NO-TOCAR-ESTA-LINEA ogLive\nset ISODIR=ogLive\nkernel (pd)/%ISODIR%/ogvmlinuz ro vga=791 quiet INFOHOST\nboot\n',
    'uefi/pxe':
      '##NO-TOCAR-ESTA-LINEA ogLive\nset ISODIR=ogLive\nlinux (tftp)/$ISODIR/ogvmlinuz ro vga=788 oglivedir=$ISODIR INFOHOST\nboot\n',
  });
  const s = await startServer({ config: { 'pxe-modes': { lang: 'C', templates_dir: templates } } });
  try {
    const center = await addCenter(s);
    const room = await addRoom(s, center);
    await addClient(s, room, '192.168.1.10', 'aa:bb:cc:dd:ee:01', { boot: 'pxe', livedir: 'ogLive-5.0.0-r20190601' });
    assert.equal(
      readIfExists(biosFile(s, '01-AA-BB-CC-DD-EE-01')),
      `##NO-TOCAR-ESTA-LINEA ogLive\nset ISODIR=ogLive-5.0.0-r20190601\nkernel (pd)/%ISODIR%/ogvmlinuz ro  quiet ${params} oglivedir=ogLive-5.0.0-r20190601 ogprof=false vga=788\nboot\n`,
      'template vga removed, INFOHOST replaced by the parameters, ISODIR set to the client live dir',
    );
    assert.equal(
      readIfExists(uefiFile(s, '01-aa:bb:cc:dd:ee:01')),
      `##NO-TOCAR-ESTA-LINEA ogLive\nset ISODIR=ogLive-5.0.0-r20190601\nlinux (tftp)/$ISODIR/ogvmlinuz ro  oglivedir=$ISODIR ${params} ogprof=false vga=788\nboot\n`,
      'a template that sets oglivedir itself gets the parameters without a second oglivedir',
    );
  } finally {
    await s.close();
    rmSync(templates, { recursive: true, force: true });
  }
});

test('templates are read on each use; .ejs wins over a plain file; a mode without a UEFI template leaves no stale UEFI file', async () => {
  const templates = siteTemplates({
    'bios/disk': 'plain INFOHOST\n',
    'bios/disk.ejs': 'ejs <%- client.ip %> <%- mode %>\n',
    'uefi/disk.ejs': 'uefi <%- oglivedir %>\n',
    'bios/.hidden': 'x',
  });
  const s = await startServer({ config: { 'pxe-modes': { templates_dir: templates } } });
  try {
    let r = await s.get('/mode');
    assert.deepEqual(r.body, { modes: ['disk'] }, 'one mode for disk and disk.ejs; hidden files are not modes');
    const center = await addCenter(s);
    const room = await addRoom(s, center);
    await addClient(s, room, '192.168.1.10', 'aa:bb:cc:dd:ee:01', { boot: 'disk' });
    assert.equal(readIfExists(biosFile(s, '01-AA-BB-CC-DD-EE-01')), 'ejs 192.168.1.10 disk\n', 'the ejs template rendered');
    assert.equal(readIfExists(uefiFile(s, '01-aa:bb:cc:dd:ee:01')), 'uefi ogLive\n', 'the UEFI template rendered');
    writeFileSync(path.join(templates, 'bios', 'biosonly.ejs'), 'bios only\n');
    r = await s.get('/mode');
    assert.deepEqual(r.body, { modes: ['biosonly', 'disk'] }, 'a template added at run time is listed without a restart');
    r = await s.post('/mode', { clients: ['192.168.1.10'], mode: 'biosonly' });
    assert.equal(r.status, 200, r.text);
    assert.equal(readIfExists(biosFile(s, '01-AA-BB-CC-DD-EE-01')), 'bios only\n', 'BIOS file rewritten');
    assert.equal(readIfExists(uefiFile(s, '01-aa:bb:cc:dd:ee:01')), null, 'the old mode UEFI file is gone');
  } finally {
    await s.close();
    rmSync(templates, { recursive: true, force: true });
  }
});

test.run();
