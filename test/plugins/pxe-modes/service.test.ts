import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { Inventory } from '../../../plugins/inventory';
import { BootFiles, UnknownModeError } from '../../../plugins/pxe-modes';
import { addCenter, addClient, addRoom } from '../../support/fixtures';
import { makeTestDir, removeTestStore, startServer } from '../../support/server';
import { allFiles, biosFile, bootDirs, readIfExists, uefiFile } from './support';

test('the BootFiles service writes a given mode, refuses an unlisted one and deletes both files', async () => {
  const s = await startServer();
  try {
    const center = await addCenter(s);
    const room = await addRoom(s, center);
    await addClient(s, room, '192.168.1.10', 'aa:bb:cc:dd:ee:01');
    const bootFiles = s.app.container.resolve(BootFiles);
    const client = (await s.app.container.resolve(Inventory).clientByIp('192.168.1.10'))!;
    await bootFiles.writeMany([client], '12');
    assert.match(readIfExists(biosFile(s, '01-AA-BB-CC-DD-EE-01'))!, /\(hd0,1\)/, 'mode 12 written');
    await assert.rejects(bootFiles.writeMany([client], '../12'), UnknownModeError, 'an unlisted mode is refused');
    await bootFiles.deleteFor(client);
    assert.equal(readIfExists(biosFile(s, '01-AA-BB-CC-DD-EE-01')), null, 'BIOS file deleted');
    assert.equal(readIfExists(uefiFile(s, '01-aa:bb:cc:dd:ee:01')), null, 'UEFI file deleted');
    await assert.rejects(bootFiles.deleteFor({ ...client, mac: '../../x' }), /malformed MAC/, 'a malformed MAC never becomes a file name');
  } finally {
    await s.close();
  }
});

test("temp files left by an interrupted write are removed at startup; the client's boot files stay", async () => {
  const dir = makeTestDir();
  try {
    const first = await startServer({ dir });
    try {
      await addClient(first, await addRoom(first, await addCenter(first)), '192.168.1.10', 'aa:bb:cc:dd:ee:01');
    } finally {
      await first.close();
    }
    const bios = path.join(dir, 'tftpboot', 'menu.lst');
    writeFileSync(path.join(bios, '.01-AA-BB-CC-DD-EE-01.123.abcdef.tmp'), 'half');
    const s = await startServer({ dir });
    try {
      assert.deepEqual(allFiles(bootDirs(s).bios), ['01-AA-BB-CC-DD-EE-01'], 'only the temp file removed');
    } finally {
      await s.close();
    }
  } finally {
    await removeTestStore(dir);
  }
});

test.run();
