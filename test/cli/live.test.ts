// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { addCenter, addClient, addRoom } from '../support/fixtures';
import { ogserve } from '../support/process';
import { makeTestDir, removeTestStore, startServer } from '../support/server';
import { pcGet } from '../plugins/boot/support';
import { entries, installedName, isoName, liveFiles, makeIso, truncated } from '../plugins/live/isos';

const lastLine = (text: string): string | undefined => text.trim().split('\n').at(-1);

test('ogserve live installs from an ISO and a folder, lists, sets the default and removes; the server then serves what it installed', async () => {
  const dir = makeTestDir();
  try {
    const first = await startServer({ dir });
    const room = await addRoom(first, await addCenter(first));
    await addClient(first, room, '192.168.1.10', 'aa:bb:cc:dd:ee:01', { livedir: installedName });
    await first.close();
    const config = ['--config', `${dir}/config.json`];
    const live = path.join(dir, 'tftpboot');
    const files = liveFiles();
    const iso = makeIso(path.join(dir, 'downloads', isoName), files);

    const installed = await ogserve(['live', 'install', '--iso', iso, ...config]);
    assert.equal(installed.code, 0, installed.stderr);
    assert.equal(lastLine(installed.stderr), `installed ${installedName}`);
    assert.equal(readlinkSync(path.join(live, 'ogLive')), installedName, 'the first one is the default');
    const folder = path.join(dir, 'mounted');
    for (const [name, content] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(folder, name)), { recursive: true });
      writeFileSync(path.join(folder, name), content);
    }
    const copied = await ogserve(['live', 'install', '--dir', folder, '--name', 'ogLive-6.8.0-r20240801', ...config]);
    assert.equal(copied.code, 0, copied.stderr);
    const again = await ogserve(['live', 'install', '--dir', folder, ...config]);
    assert.deepEqual([again.code, lastLine(again.stderr)], [1, 'ogserve: no ogLive-* directory name can be read from mounted: name it']);

    const listed = await ogserve(['live', 'list', ...config]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(listed.stdout.trim().split('\n'), [
      `${installedName}  noble 6.8.0-31-generic amd64 r20240716  default`,
      'ogLive-6.8.0-r20240801  6.8.0 amd64 r20240801',
    ]);
    assert.equal((await ogserve(['live', 'default', 'ogLive-6.8.0-r20240801', ...config])).code, 0);
    assert.equal(readlinkSync(path.join(live, 'ogLive')), 'ogLive-6.8.0-r20240801');
    const refused = await ogserve(['live', 'remove', installedName, ...config]);
    assert.deepEqual(
      [refused.code, lastLine(refused.stderr)],
      [1, `ogserve: ${installedName} is the live image of pc-192.168.1.10 (192.168.1.10): give them another one first`],
    );

    const cut = truncated(iso, path.join(dir, 'downloads', 'cut.iso'), 100_000);
    const before = entries(live);
    const broken = await ogserve(['live', 'install', '--iso', cut, '--name', 'ogLive-cut', ...config]);
    assert.equal(broken.code, 1);
    assert.match(lastLine(broken.stderr)!, /^ogserve: cut\.iso is cut short: 100000 of its \d+ bytes/);
    assert.deepEqual(entries(live), before, 'nothing left behind');
    for (const args of [['install', ...config], ['install', '--iso', iso, '--dir', folder, ...config], ['remove', ...config], ['move']]) {
      const r = await ogserve(['live', ...args]);
      assert.equal(r.code, 2, `live ${args.join(' ')}: a usage error`);
    }

    const s = await startServer({ dir });
    try {
      const kernel = await pcGet(s.port, '/boot/files/ogLive/ogvmlinuz');
      assert.equal(kernel.status, 200, kernel.text);
      assert.ok(kernel.body.equals(files['ogclient/ogvmlinuz']!), 'the default image, copied from the folder');
      assert.ok(readFileSync(path.join(live, installedName, 'SHA256SUMS'), 'utf8').includes('  ogclient.sqfs\n'));
    } finally {
      await s.close();
    }
  } finally {
    await removeTestStore(dir);
  }
});

test.run();
