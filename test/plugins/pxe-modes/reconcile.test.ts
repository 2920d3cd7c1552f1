// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { Inventory } from '../../../plugins/inventory';
import { BootFiles } from '../../../plugins/pxe-modes';
import { biosFileName, uefiFileName } from '../../../plugins/pxe-modes/file-names';
import { addCenter, addClient, addRoom } from '../../support/fixtures';
import { makeTestDir, removeTestStore, startServer, type TestServer } from '../../support/server';
import { readIfExists } from './support';

/**
 * Boot files always match the database: at start (and when called, after a restore) every
 * client's files are compared with what its record renders to, and only what differs is
 * written or removed.
 */

/** A template folder: modes a and b for both firmware kinds, biosonly without a UEFI template, retired. */
function templateFolder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-templates-'));
  const files: Record<string, string> = {
    'bios/a.ejs': 'bios a <%- client.ip %> <%- params %>\n',
    'uefi/a.ejs': 'uefi a <%- client.ip %> <%- params %>\n',
    'bios/b.ejs': 'bios b <%- client.name %>\n',
    'uefi/b.ejs': 'uefi b <%- client.name %>\n',
    'bios/biosonly.ejs': 'bios only <%- client.mac %>\n',
    'bios/retired.ejs': 'retired <%- client.ip %>\n',
    'uefi/retired.ejs': 'retired <%- client.ip %>\n',
  };
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

const macs = ['0a0000000001', '0a0000000002', '0a0000000003', '0a0000000004', '0a0000000005'];
const modes = ['a', 'a', 'b', 'retired', 'biosonly'];

function files(dir: string, mac: string): { bios: string; uefi: string } {
  return {
    bios: path.join(dir, 'tftpboot', 'menu.lst', biosFileName(mac)),
    uefi: path.join(dir, 'tftpboot', 'grub', uefiFileName(mac)),
  };
}

function bootFolderNames(dir: string): string[] {
  return ['menu.lst', 'grub'].flatMap((f) => readdirSync(path.join(dir, 'tftpboot', f)).map((n) => `${f}/${n}`)).sort();
}

test('at start, files missing or different from their record are written, the rest left untouched, and the counts logged', async () => {
  const dir = makeTestDir();
  const templates = templateFolder();
  const config = { 'pxe-modes': { templates_dir: templates } };
  try {
    const first = await startServer({ dir, config });
    try {
      const room = await addRoom(first, await addCenter(first));
      for (const [i, mac] of macs.entries()) await addClient(first, room, `10.0.0.${i + 1}`, mac, { boot: modes[i] });
    } finally {
      await first.close();
    }
    const right = macs.map((mac) => files(dir, mac)).map((f) => ({ bios: readIfExists(f.bios), uefi: readIfExists(f.uefi) }));
    assert.equal(right[4]!.uefi, null, 'a mode without a UEFI template has no UEFI file');

    // What a kill in the middle of a change, or an edit behind ogserve's back, leaves.
    writeFileSync(files(dir, macs[0]!).bios, 'bios b pc-10.0.0.1\n'); // another mode's file
    unlinkSync(files(dir, macs[1]!).uefi); // never written
    const untouched = statSync(files(dir, macs[2]!).bios);
    rmSync(path.join(templates, 'bios', 'retired.ejs')); // the mode of client 4 is gone
    rmSync(path.join(templates, 'uefi', 'retired.ejs'));
    writeFileSync(files(dir, macs[4]!).uefi, 'stale uefi file\n'); // left by the mode before
    writeFileSync(path.join(dir, 'tftpboot', 'grub', `.${uefiFileName(macs[2]!)}.123.abcdef.tmp`), 'half');
    writeFileSync(path.join(dir, 'tftpboot', 'menu.lst', biosFileName('0b0000000001')), 'client gone\n');

    const again = await startServer({ dir, config });
    try {
      for (const i of [0, 1, 2]) {
        const f = files(dir, macs[i]!);
        assert.deepEqual({ bios: readIfExists(f.bios), uefi: readIfExists(f.uefi) }, right[i], `client ${i + 1}'s files are right`);
      }
      const after = statSync(files(dir, macs[2]!).bios);
      assert.deepEqual([after.ino, after.mtimeMs], [untouched.ino, untouched.mtimeMs], 'a right file is not written again');
      const f4 = files(dir, macs[3]!);
      assert.deepEqual({ bios: readIfExists(f4.bios), uefi: readIfExists(f4.uefi) }, right[3], 'a mode without templates is left alone');
      assert.equal(readIfExists(files(dir, macs[4]!).uefi), null, 'the UEFI file of a BIOS-only mode is removed');
      assert.deepEqual(
        bootFolderNames(dir),
        macs.flatMap((mac, i) => [`menu.lst/${biosFileName(mac)}`, ...(i === 4 ? [] : [`grub/${uefiFileName(mac)}`])]).sort(),
        'no temp file, no file of a client that is gone',
      );
      const summary = again.logs.find((l) => typeof l.msg === 'string' && l.msg.includes('checked against their records'));
      assert.ok(summary, `a summary line: ${JSON.stringify(again.logs.map((l) => l.msg))}`);
      assert.equal(summary.level, 'warn', 'something had to be put right');
      assert.deepEqual(
        [
          summary.clients,
          summary.missing,
          summary.different,
          summary.unwanted,
          summary.orphans,
          summary.tempFiles,
          summary.clientsPutRight,
        ],
        [5, 1, 1, 1, 1, 1, 3],
      );
      assert.match(String(summary.msg), /1 clients left as they are \(mode without a template\)/);
      assert.ok(again.logs.some((l) => l.level === 'warn' && l.mode === 'retired' && /no template/.test(String(l.msg))));
    } finally {
      await again.close();
    }
  } finally {
    await removeTestStore(dir);
    rmSync(templates, { recursive: true, force: true });
  }
});

/** Every client's two files, by MAC. */
function snapshot(s: TestServer, count: number): string[] {
  return Array.from({ length: count }, (_, i) => files(s.dir, macs[i]!)).flatMap((f) => [readIfExists(f.bios)!, readIfExists(f.uefi)!]);
}

test('BootFiles.reconcile, called after the records changed behind the service (a restore), makes the files follow them', async () => {
  const templates = templateFolder();
  const s = await startServer({ config: { 'pxe-modes': { templates_dir: templates } } });
  try {
    const room = await addRoom(s, await addCenter(s));
    for (const [i, mac] of macs.slice(0, 3).entries()) await addClient(s, room, `10.0.0.${i + 1}`, mac, { boot: 'a' });
    const ips = ['10.0.0.1', '10.0.0.2', '10.0.0.3'];
    assert.equal((await s.post('/mode', { clients: ips, mode: 'b' })).status, 200);
    const modeB = snapshot(s, 3);
    assert.equal((await s.post('/mode', { clients: ips, mode: 'a' })).status, 200);
    const modeA = snapshot(s, 3);

    // A restore writes the tables directly, then tells the inventory and the boot files.
    await s.app.database.query("update clients set boot = 'b' where ip <> '10.0.0.3'");
    s.app.container.resolve(Inventory).tablesChanged();
    const bootFiles = s.app.container.resolve(BootFiles);
    const result = await bootFiles.reconcile();
    assert.deepEqual([result.clients, result.different, result.missing, result.clientsPutRight, result.failed], [3, 4, 0, 2, 0]);
    assert.deepEqual(snapshot(s, 3), [...modeB.slice(0, 4), ...modeA.slice(4)], 'each client has the files of its record');

    const second = await bootFiles.reconcile();
    assert.deepEqual([second.clients, second.different, second.missing], [3, 0, 0], 'nothing left to put right');
    const lines = s.logs.filter((l) => typeof l.msg === 'string' && l.msg.includes('checked against their records'));
    assert.deepEqual(
      lines.slice(-2).map((l) => l.level),
      ['warn', 'info'],
      'a reconciliation that changed nothing is not a warning',
    );
  } finally {
    await s.close();
    rmSync(templates, { recursive: true, force: true });
  }
});

test.run();
