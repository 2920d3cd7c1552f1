// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readlinkSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { addCenter, addClient, addRoom } from '../../support/fixtures';
import { eventually } from '../../support/fake-agent';
import { makeTestDir, removeTestStore, startServer, type TestServer } from '../../support/server';
import { pcGet } from '../boot/support';
import { entries, installedName, isoName, liveFiles, makeIso, truncated } from './isos';

const liveDir = (s: TestServer): string => path.join(s.dir, 'tftpboot');
const isoDir = (s: TestServer): string => path.join(s.dir, 'isos');
const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

test('POST /live/install unpacks an ogLive ISO of live.iso_dir under the name oglivecli gives it, with its manifest; the first is the default', async () => {
  const s = await startServer();
  try {
    const files = liveFiles();
    makeIso(path.join(isoDir(s), isoName), files);
    const isos = await s.get('/live/isos');
    assert.deepEqual(isos.body, { isos: [isoName] }, 'the ISOs an admin may install');
    const r = await s.post('/live/install', { iso: isoName });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, {
      distribution: 'noble',
      kernel: '6.8.0-31-generic',
      architecture: 'amd64',
      revision: 'r20240716',
      directory: installedName,
      iso: isoName,
      // The test ISO's kernel is a few bytes, no PE file.
      signed: false,
      signer: '',
    });
    const folder = path.join(liveDir(s), installedName);
    assert.deepEqual(entries(folder), ['SHA256SUMS', 'ogclient.sqfs', 'oginitrd.img', 'ogvmlinuz'], 'the three files and the manifest');
    for (const name of ['ogvmlinuz', 'oginitrd.img', 'ogclient.sqfs'])
      assert.ok(readFileSync(path.join(folder, name)).equals(files[`ogclient/${name}`]!), `${name} unpacked whole`);
    const manifest = readFileSync(path.join(folder, 'SHA256SUMS'), 'utf8');
    assert.ok(manifest.includes(`${sha256(files['ogclient/oginitrd.img']!)}  oginitrd.img\n`), 'sha256sum format');
    assert.equal(readlinkSync(path.join(liveDir(s), 'ogLive')), installedName, 'the first image is the default');
    const list = await s.get('/live/list');
    assert.deepEqual(
      list.body.live.map((e: { directory: string }) => e.directory),
      [installedName],
    );
    assert.equal(list.body.default, 0);
    const kernel = await pcGet(s.port, `/boot/files/ogLive/ogvmlinuz`);
    assert.equal(kernel.status, 200, 'served through the default link');
    assert.ok(kernel.body.equals(files['ogclient/ogvmlinuz']!));

    const again = await s.post('/live/install', { iso: isoName });
    assert.deepEqual([again.status, again.body.error, again.body.field], [400, 'duplicate', 'name'], again.text);
    const named = await s.post('/live/install', { iso: isoName, name: 'ogLive-test' });
    assert.equal(named.status, 200, 'the same ISO under another name');
    assert.equal(readlinkSync(path.join(liveDir(s), 'ogLive')), installedName, 'the default stays');
    assert.deepEqual(
      entries(liveDir(s)).filter((n) => n.startsWith('.')),
      [],
      'no work folder left',
    );
  } finally {
    await s.close();
  }
});

test('a truncated ISO, a foreign ISO, a file that is no ISO and a name outside live.iso_dir are refused with one line, leaving nothing', async () => {
  const s = await startServer();
  try {
    const good = makeIso(path.join(isoDir(s), isoName), liveFiles());
    const size = readFileSync(good).length;
    truncated(good, path.join(isoDir(s), 'ogLive-cut-6.8.0-amd64-r1.iso'), Math.floor(size / 2));
    makeIso(path.join(isoDir(s), 'ogLive-foreign-6.8.0-amd64-r1.iso'), { 'boot/vmlinuz': 'kernel', 'README.txt': 'other' });
    writeFileSync(path.join(isoDir(s), 'ogLive-text-6.8.0-amd64-r1.iso'), 'not an image\n');
    const outside = path.join(s.dir, 'outside.txt');
    writeFileSync(outside, 'a file of the server', { mode: 0o600 });
    makeIso(path.join(isoDir(s), 'ogLive-link-6.8.0-amd64-r1.iso'), {
      ...liveFiles(),
      'ogclient/ogvmlinuz': { link: outside },
    });
    const before = entries(liveDir(s));
    for (const [iso, message] of [
      ['ogLive-cut-6.8.0-amd64-r1.iso', /^ogLive-cut-6\.8\.0-amd64-r1\.iso is cut short: \d+ of its \d+ bytes/],
      [
        'ogLive-foreign-6.8.0-amd64-r1.iso',
        /is not an ogLive ISO: it has no ogclient\/ogvmlinuz, ogclient\/oginitrd\.img, ogclient\/ogclient\.sqfs$/,
      ],
      ['ogLive-text-6.8.0-amd64-r1.iso', /is not an ISO 9660 image$/],
      ['ogLive-link-6.8.0-amd64-r1.iso', /is not an ogLive ISO: its ogclient\/ogvmlinuz is not a plain file$/],
      ['missing.iso', /is not a file$/],
    ] as const) {
      const r = await s.post('/live/install', { iso });
      assert.deepEqual([r.status, r.body.error, r.body.field], [400, 'invalid_field', 'iso'], `${iso}: ${r.text}`);
      assert.match(r.body.message, message, iso);
      assert.ok(!r.body.message.includes('\n'), 'one line');
      assert.deepEqual(entries(liveDir(s)), before, `${iso}: nothing left in the live directory`);
    }
    for (const iso of ['../isos/x.iso', '/etc/passwd', 'x.img', '.hidden.iso']) {
      const r = await s.post('/live/install', { iso });
      assert.deepEqual([r.status, r.body.field], [400, 'iso'], `${iso}: ${r.text}`);
    }
    for (const name of ['ogLive', 'other-name', '../ogLive-x']) {
      const r = await s.post('/live/install', { iso: isoName, name });
      assert.deepEqual([r.status, r.body.field], [400, 'name'], `name ${name}: ${r.text}`);
    }
    assert.deepEqual(entries(liveDir(s)), before, 'nothing left in the live directory');
    assert.equal(statSync(outside).mode & 0o777, 0o600, 'the file a link in the ISO named is left alone');
  } finally {
    await s.close();
  }
});

test('a file that no longer matches its manifest is not served, through the link or not; put back, it is again', async () => {
  const s = await startServer();
  try {
    const files = liveFiles();
    makeIso(path.join(isoDir(s), isoName), files);
    assert.equal((await s.post('/live/install', { iso: isoName })).status, 200);
    const initrd = path.join(liveDir(s), installedName, 'oginitrd.img');
    assert.equal((await pcGet(s.port, `/boot/files/${installedName}/oginitrd.img`)).status, 200, 'whole: served');
    const damaged = Buffer.from(files['ogclient/oginitrd.img']!);
    damaged[1000] ^= 0xff;
    writeFileSync(initrd, damaged);
    for (const url of [`/boot/files/${installedName}/oginitrd.img`, '/boot/files/ogLive/oginitrd.img']) {
      const r = await pcGet(s.port, url);
      assert.equal(r.status, 500, `${url}: ${r.text}`);
      assert.equal(JSON.parse(r.text).error, 'file_damaged');
      assert.match(JSON.parse(r.text).message, /oginitrd\.img does not match its image's manifest/);
    }
    assert.equal((await pcGet(s.port, `/boot/files/${installedName}/ogvmlinuz`)).status, 200, "the image's other files still are");
    const metrics = await s.get('/metrics');
    assert.match(metrics.text, /^ogserve_boot_refused_total\{reason="damaged"\} 2$/m, 'counted');
    writeFileSync(initrd, files['ogclient/oginitrd.img']!);
    // Another mtime even on a coarse clock: the file is hashed again.
    utimesSync(initrd, new Date(), new Date(Date.now() + 5000));
    const back = await pcGet(s.port, `/boot/files/${installedName}/oginitrd.img`);
    assert.equal(back.status, 200, back.text);
    assert.ok(back.body.equals(files['ogclient/oginitrd.img']!));
  } finally {
    await s.close();
  }
});

test('each start checks every installed image against its manifest and says which file is not served', async () => {
  const dir = makeTestDir();
  try {
    let s = await startServer({ dir });
    makeIso(path.join(isoDir(s), isoName), liveFiles());
    assert.equal((await s.post('/live/install', { iso: isoName })).status, 200);
    await s.close();
    writeFileSync(path.join(dir, 'tftpboot', installedName, 'ogclient.sqfs'), 'something else');
    s = await startServer({ dir });
    try {
      await eventually(() => s.logs.find((l) => l.level === 'warn' && l.msg.includes('live image not served')), 'the start log says it');
      const said = s.logs.find((l) => l.msg.includes('live image not served'))!;
      assert.equal(said.msg, `live image not served: ${installedName}/ogclient.sqfs does not match its image's manifest`);
    } finally {
      await s.close();
    }
  } finally {
    await removeTestStore(dir);
  }
});

test('at start, what an interrupted install or removal left is removed once an hour old; younger work is left alone', async () => {
  const dir = makeTestDir();
  try {
    const live = path.join(dir, 'tftpboot');
    const hoursAgo = new Date(Date.now() - 2 * 3600_000);
    for (const name of ['.install-old', '.remove-old', '.install-new']) {
      mkdirSync(path.join(live, name), { recursive: true });
      writeFileSync(path.join(live, name, 'ogclient.sqfs'), 'partial');
    }
    utimesSync(path.join(live, '.install-old'), hoursAgo, hoursAgo);
    utimesSync(path.join(live, '.remove-old'), hoursAgo, hoursAgo);
    mkdirSync(path.join(live, '.hidden-of-the-site'));
    utimesSync(path.join(live, '.hidden-of-the-site'), hoursAgo, hoursAgo);
    const s = await startServer({ dir });
    try {
      assert.deepEqual(entries(live), ['.hidden-of-the-site', '.install-new'], 'only the old work folders went');
    } finally {
      await s.close();
    }
  } finally {
    await removeTestStore(dir);
  }
});

test('POST /live/default moves the ogLive link; POST /live/remove refuses the default and an image clients boot, naming them', async () => {
  const s = await startServer();
  try {
    makeIso(path.join(isoDir(s), isoName), liveFiles());
    assert.equal((await s.post('/live/install', { iso: isoName })).status, 200);
    assert.equal((await s.post('/live/install', { iso: isoName, name: 'ogLive-second' })).status, 200);
    let r = await s.post('/live/default', { name: 'ogLive-second' });
    assert.equal(r.status, 200, r.text);
    assert.equal(readlinkSync(path.join(liveDir(s), 'ogLive')), 'ogLive-second');
    assert.equal((await s.get('/live/list')).body.default, 1, 'the listing follows the link');
    r = await s.post('/live/remove', { name: 'ogLive-second' });
    assert.deepEqual([r.status, r.body.error, r.body.field], [400, 'conflict', 'name'], r.text);
    assert.match(r.body.message, /is the default live image/);

    const room = await addRoom(s, await addCenter(s));
    await addClient(s, room, '192.168.1.10', 'aa:bb:cc:dd:ee:01', { livedir: installedName });
    await addClient(s, room, '192.168.1.11', 'aa:bb:cc:dd:ee:02', { livedir: installedName });
    r = await s.post('/live/remove', { name: installedName });
    assert.deepEqual([r.status, r.body.error, r.body.field], [400, 'conflict', 'name'], r.text);
    assert.equal(
      r.body.message,
      `${installedName} is the live image of pc-192.168.1.10 (192.168.1.10), pc-192.168.1.11 (192.168.1.11): give them another one first`,
    );
    assert.ok(entries(liveDir(s)).includes(installedName), 'still there');
    assert.equal((await s.post('/live/set', { clients: ['192.168.1.10', '192.168.1.11'], name: 'default' })).status, 200);
    // An OpenGnsys ogliveinfo.json listing it: the entry goes with the folder, as oglivecli's uninstall does.
    const info = path.join(liveDir(s), 'ogliveinfo.json');
    const entry = (directory: string) => ({
      distribution: 'noble',
      kernel: '6.8.0',
      architecture: 'amd64',
      revision: 'r1',
      directory,
      iso: '',
    });
    writeFileSync(info, JSON.stringify({ oglive: [entry(installedName), entry('ogLive-second')], default: 0 }));
    assert.equal((await s.post('/live/default', { name: 'ogLive-second' })).status, 200);
    assert.equal(JSON.parse(readFileSync(info, 'utf8')).default, 1, "the info file's default follows, as oglivecli's set-default");
    r = await s.post('/live/remove', { name: installedName });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(JSON.parse(readFileSync(info, 'utf8')), { oglive: [entry('ogLive-second')], default: 0 }, 'unlisted');
    assert.deepEqual(
      (await s.get('/live/list')).body.live.map((e: { directory: string }) => e.directory),
      ['ogLive-second'],
    );
    assert.deepEqual(
      entries(liveDir(s)).filter((n) => n.startsWith('ogLive')),
      ['ogLive', 'ogLive-second'],
      'the folder is gone, nothing else',
    );
    assert.deepEqual(
      entries(liveDir(s)).filter((n) => n.startsWith('.')),
      [],
      'no work folder left',
    );

    for (const [route, name, code] of [
      ['/live/remove', installedName, 'unknown_id'],
      ['/live/default', installedName, 'unknown_id'],
      ['/live/remove', 'ogLive', 'invalid_field'],
      ['/live/default', '../ogLive-second', 'invalid_field'],
      ['/live/remove', 'ogLive-second/ogvmlinuz', 'invalid_field'],
    ] as const) {
      r = await s.post(route, { name });
      assert.deepEqual([r.status, r.body.error, r.body.field], [400, code, 'name'], `${route} ${name}: ${r.text}`);
    }
    r = await s.post('/live/remove', {});
    assert.deepEqual([r.status, r.body.field], [400, 'name'], 'the name is needed');
  } finally {
    await s.close();
  }
});

test.run();
