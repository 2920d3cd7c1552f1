import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { biosFileName, uefiFileName } from '../../../plugins/pxe-modes/file-names';
import { bulkInsert, ipFor } from '../../support/bulk';
import { prepareSite, spawnServer } from '../../support/child-server';
import { eventually } from '../../support/fake-agent';
import { addCenter, addClient, addRoom, macFor } from '../../support/fixtures';
import { makeTestDir, removeTestStore, send, startServer, TOKEN } from '../../support/server';
import { connectSide } from '../../support/test-db';

/**
 * Boot files never outlive their client: a file named after a MAC no client has is removed
 * at start and after removals of several clients (a cascade), whatever left it behind.
 */

function dirsOf(dir: string): { bios: string; uefi: string } {
  return { bios: path.join(dir, 'tftpboot', 'menu.lst'), uefi: path.join(dir, 'tftpboot', 'grub') };
}

/** Boot files of `mac` written by hand, as a crash or another tool would leave them. */
function plant(dir: string, mac: string): void {
  const { bios, uefi } = dirsOf(dir);
  mkdirSync(bios, { recursive: true });
  mkdirSync(uefi, { recursive: true });
  writeFileSync(path.join(bios, biosFileName(mac)), 'menu of a client that is gone\n');
  writeFileSync(path.join(uefi, uefiFileName(mac)), 'menu of a client that is gone\n');
}

function bootFileCount(dir: string): number {
  const { bios, uefi } = dirsOf(dir);
  const count = (d: string) => (existsSync(d) ? readdirSync(d).filter((n) => n.startsWith('01-')).length : 0);
  return count(bios) + count(uefi);
}

test('at start, boot files of MACs no client has are removed; clients files, other names and other folders stay', async () => {
  const dir = makeTestDir();
  try {
    const first = await startServer({ dir });
    try {
      const room = await addRoom(first, await addCenter(first));
      await addClient(first, room, '10.0.0.1', '02:00:00:00:00:01');
    } finally {
      await first.close();
    }
    const { bios, uefi } = dirsOf(dir);
    plant(dir, '0a0000000001');
    plant(dir, 'ffffffffffff');
    // Not named as ogserve names boot files here, or not a file: none of them is touched.
    const kept = [
      path.join(bios, 'default'),
      path.join(bios, '01-0a-00-00-00-00-02'),
      path.join(uefi, '01-0A:00:00:00:00:02'),
      path.join(uefi, '01-0a-00-00-00-00-02'),
      path.join(bios, '01-0A-00-00-00-00-02.bak'),
      path.join(dir, 'tftpboot', biosFileName('0a0000000003')),
    ];
    for (const file of kept) writeFileSync(file, 'site file\n');
    mkdirSync(path.join(bios, biosFileName('0a0000000004')));
    symlinkSync(path.join(bios, 'default'), path.join(uefi, uefiFileName('0a0000000005')));

    const again = await startServer({ dir });
    try {
      assert.ok(!existsSync(path.join(bios, biosFileName('0a0000000001'))), 'orphan BIOS file removed');
      assert.ok(!existsSync(path.join(uefi, uefiFileName('0a0000000001'))), 'orphan UEFI file removed');
      assert.ok(!existsSync(path.join(bios, biosFileName('ffffffffffff'))), 'second orphan removed');
      assert.ok(!existsSync(path.join(uefi, uefiFileName('0a0000000005'))), 'a symlink named like a boot file is removed');
      assert.ok(existsSync(path.join(bios, 'default')), 'the link target stays');
      assert.ok(existsSync(path.join(bios, biosFileName('020000000001'))), "the client's BIOS file stays");
      assert.ok(existsSync(path.join(uefi, uefiFileName('020000000001'))), "the client's UEFI file stays");
      for (const file of kept) assert.ok(existsSync(file), `${path.relative(dir, file)} stays`);
      assert.ok(existsSync(path.join(bios, biosFileName('0a0000000004'))), 'a folder named like a boot file stays');
      assert.ok(
        again.logs.some((l) => l.level === 'warn' && /removed 5 boot file\(s\) of clients no longer in the inventory/.test(l.msg)),
        `the sweep is logged: ${JSON.stringify(again.logs.map((l) => l.msg))}`,
      );
    } finally {
      await again.close();
    }
  } finally {
    await removeTestStore(dir);
  }
});

test('a cascade and a delete of several clients also remove boot files no client has', async () => {
  const s = await startServer();
  try {
    const center = await addCenter(s);
    const doomed = await addRoom(s, center, 'Doomed');
    const kept = await addRoom(s, center, 'Kept');
    for (const n of [1, 2, 3]) await addClient(s, doomed, `10.0.1.${n}`, macFor(0x100 + n));
    for (const n of [4, 5, 6]) await addClient(s, kept, `10.0.2.${n}`, macFor(0x200 + n));
    assert.equal(bootFileCount(s.dir), 12, 'two files per client');
    plant(s.dir, '0b0000000001');
    assert.equal((await s.post('/room/delete', { id: doomed })).status, 200, 'room deleted');
    assert.equal(bootFileCount(s.dir), 6, 'the room clients files and the orphan are gone, the other room keeps its own');
    plant(s.dir, '0b0000000002');
    assert.equal((await s.post('/client/delete', { clients: ['10.0.2.4', '10.0.2.5'] })).status, 200, 'two clients deleted');
    const { bios } = dirsOf(s.dir);
    assert.deepEqual(readdirSync(bios), [biosFileName(macFor(0x206))], 'only the last client has files');
  } finally {
    await s.close();
  }
});

test('SIGKILL while a center of 2,000 clients is deleted leaves none of their boot files after the restart', async () => {
  const clients = 2000;
  const dir = makeTestDir();
  try {
    await prepareSite(dir, async (s) => {
      const db = s.app.database;
      await bulkInsert(
        db,
        'centers',
        ['id', 'name'],
        [
          [1, 'Big'],
          [2, 'Other'],
        ],
      );
      await bulkInsert(
        db,
        'rooms',
        ['id', 'name', 'center_id', 'netmask'],
        [
          [1, 'R1', 1, '255.0.0.0'],
          [2, 'R2', 2, '255.0.0.0'],
        ],
      );
      // Client 1 is in the other center and keeps its files.
      await bulkInsert(
        db,
        'clients',
        ['id', 'name', 'ip', 'mac', 'room_id'],
        Array.from({ length: clients + 1 }, (_, i) => [i + 1, `pc${i}`, ipFor(i + 1), macFor(i + 1), i === 0 ? 2 : 1]),
      );
    });
    for (let i = 1; i <= clients + 1; i++) plant(dir, macFor(i));
    const side = await connectSide(dir);
    try {
      const server = await spawnServer({ dir });
      let leftAtKill: number;
      try {
        const reply = send(server.restPort, 'POST', '/center/delete', { id: 1 }, { Authorization: TOKEN }).catch(() => undefined);
        let answered = false;
        void reply.then(() => (answered = true));
        // Kill as soon as the delete has committed: its file removals are then under way.
        await eventually(
          async () => answered || Number((await side.query<{ n: number }>('select count(*) as n from clients'))[0]!.n) === 1,
          'the delete to commit',
          60_000,
        );
        process.kill(server.pid, 'SIGKILL');
        await server.stop();
        leftAtKill = bootFileCount(dir) - 2;
      } finally {
        await server.stop();
      }
      const restarted = await spawnServer({ dir });
      await restarted.stop();
      const { bios, uefi } = dirsOf(dir);
      assert.deepEqual(
        [...readdirSync(bios), ...readdirSync(uefi)].filter((n) => n.startsWith('01-')),
        [biosFileName(macFor(1)), uefiFileName(macFor(1))],
        `only the remaining client's files after the restart (${leftAtKill} of the deleted clients' were left at the kill)`,
      );
    } finally {
      await side.close();
    }
  } finally {
    await removeTestStore(dir);
  }
});

test.run();
