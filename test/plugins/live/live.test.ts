import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { addCenter, addClient, addRoom } from '../../support/fixtures';
import { startServer, type TestServer } from '../../support/server';
import { allFiles, biosFile, readIfExists, uefiFile, withoutDatabase } from '../pxe-modes/support';

/** The live directory startServer points `live.directory` at. */
const liveDir = (s: TestServer): string => path.join(s.dir, 'tftpboot');

/** Install fake live images the way oglivecli lays them out. */
function installImages(s: TestServer, names: string[], defaultLink?: string): void {
  for (const name of names) mkdirSync(path.join(liveDir(s), name), { recursive: true });
  if (defaultLink) symlinkSync(defaultLink, path.join(liveDir(s), 'ogLive'));
}

const images = ['ogLive-5.0.0-i386-r20190601', 'ogLive-5.13.0-27-beta-r20210706', 'ogLive-focal-5.13.0-27-beta-amd64-r20210706.5e9f2ff'];

const expectedOld = [
  { distribution: '', kernel: '5.0.0', architecture: 'i386', revision: 'r20190601', directory: images[0], iso: '' },
  { distribution: '', kernel: '5.13.0-27-beta', architecture: 'amd64', revision: 'r20210706', directory: images[1], iso: '' },
  { distribution: 'focal', kernel: '5.13.0-27-beta', architecture: 'amd64', revision: 'r20210706', directory: images[2], iso: '' },
];
/** GET /live/list tells whether each kernel is signed: these images have none to read. */
const noKernel = { signed: null, signer: '' };
const expectedList = expectedOld.map((entry) => ({ ...entry, ...noKernel }));

test('GET /live/list reads ogLive-* directories; the ogLive link marks the default; backups and files are skipped', async () => {
  const s = await startServer();
  try {
    installImages(s, [...images, 'ogLive-5.0.0-r20190601.old'], images[1]);
    writeFileSync(path.join(liveDir(s), 'ogLive-notadir'), '');
    const r = await s.get('/live/list');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { live: expectedList, default: 1 }, 'entries parsed from directory names, default = link target');
    const old = await s.get('/oglive/list');
    assert.deepEqual(old.body, { oglive: expectedOld, default: 1 }, 'the older path answers with the older key and shape');
  } finally {
    await s.close();
  }
});

test('an ogliveinfo.json in the live directory is listed first, with its default', async () => {
  const s = await startServer();
  try {
    installImages(s, [images[0]!]);
    const entry = {
      distribution: 'bionic',
      kernel: '4.15.0',
      architecture: 'amd64',
      revision: 'r20200101',
      directory: 'ogLive-4.15.0-r20200101',
      iso: 'ogLive-bionic-4.15.0-amd64-r20200101.iso',
    };
    writeFileSync(path.join(liveDir(s), 'ogliveinfo.json'), JSON.stringify({ oglive: [entry, { directory: '../../etc' }], default: 0 }));
    const r = await s.get('/live/list');
    assert.deepEqual(
      r.body,
      { live: [{ ...entry, ...noKernel }, expectedList[0]], default: 0 },
      'info file entry, then the directory found; unsafe directory names dropped',
    );
  } finally {
    await s.close();
  }
});

test('POST /live/add lists an entry; duplicates and bad names are refused; /live/delete removes only added entries', async () => {
  const s = await startServer();
  try {
    installImages(s, [images[0]!]);
    let r = await s.post('/live/add', { name: 'ogLive-jammy-6.2.0-amd64-r20240101', iso: 'x.iso' });
    assert.equal(r.status, 200, r.text);
    r = await s.get('/live/list');
    assert.deepEqual(
      r.body.live[1],
      {
        distribution: 'jammy',
        kernel: '6.2.0',
        architecture: 'amd64',
        revision: 'r20240101',
        directory: 'ogLive-jammy-6.2.0-amd64-r20240101',
        iso: 'x.iso',
        ...noKernel,
      },
      'added entry listed after the directories, fields read from its name',
    );
    for (const [name, code] of [
      ['ogLive-jammy-6.2.0-amd64-r20240101', 'duplicate'],
      [images[0], 'duplicate'],
      ['../../etc/passwd', 'invalid_field'],
      ['/etc/passwd', 'invalid_field'],
      ['ogLive\u0000x', 'invalid_field'],
    ] as const) {
      r = await s.post('/live/add', { name });
      assert.equal(r.status, 400, `add ${JSON.stringify(name)}: ${r.text}`);
      assert.equal(r.body.error, code, `add ${JSON.stringify(name)}: ${code}`);
      assert.equal(r.body.field, 'name', `add ${JSON.stringify(name)}: names the field`);
    }
    for (const distribution of ['jammy\u0007', 'jammy\u0085', '\u009b2J']) {
      r = await s.post('/live/add', { name: 'ogLive-other', distribution });
      assert.equal(r.status, 400, `distribution ${JSON.stringify(distribution)}: ${r.text}`);
      assert.equal(r.body.field, 'distribution', 'names the field');
    }
    r = await s.post('/live/delete', { name: images[0] });
    assert.equal(r.status, 400, 'an image found on disk is not deleted through the interface');
    r = await s.post('/live/delete', { name: 'nothing-here' });
    assert.equal(r.status, 400, 'unknown entry');
    r = await s.post('/live/delete', { name: 'ogLive-jammy-6.2.0-amd64-r20240101' });
    assert.equal(r.status, 200, r.text);
    r = await s.get('/live/list');
    assert.deepEqual(r.body, { live: [expectedList[0]], default: 0 }, 'added entry gone');
  } finally {
    await s.close();
  }
});

test('POST /live/set with a known name stores it and rewrites both boot files', async () => {
  const s = await startServer();
  try {
    installImages(s, images, images[1]);
    const center = await addCenter(s);
    const room = await addRoom(s, center);
    await addClient(s, room, '192.168.1.10', 'aa:bb:cc:dd:ee:01');
    const r = await s.post('/live/set', { clients: ['192.168.1.10', '10.0.0.9'], name: images[0] });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { livedir: images[0], unknown: ['10.0.0.9'] }, 'applied directory and unknown addresses reported');
    const info = await s.get('/client/info', { client: ['192.168.1.10'] });
    assert.equal(info.body.livedir, images[0], 'livedir stored');
    const bios = readIfExists(biosFile(s, '01-AA-BB-CC-DD-EE-01'))!;
    assert.ok(
      bios.includes(`kernel (pd)/${images[0]}/ogvmlinuz`) && bios.includes(` oglivedir=${images[0]} `),
      'BIOS file boots the chosen image',
    );
    const uefi = readIfExists(uefiFile(s, '01-aa:bb:cc:dd:ee:01'))!;
    assert.ok(uefi.includes(`set ISODIR=${images[0]}\n`), 'UEFI file boots the chosen image');
    const old = await s.post('/oglive/set', { clients: ['192.168.1.10'], name: images[2] });
    assert.equal(old.status, 200, old.text);
    assert.ok(readIfExists(biosFile(s, '01-AA-BB-CC-DD-EE-01'))!.includes(` oglivedir=${images[2]} `), 'the older path works the same');
  } finally {
    await s.close();
  }
});

test('POST /live/set with `default`, an unknown name or a path trick applies the default; nothing is written elsewhere', async () => {
  for (const link of [true, false]) {
    const s = await startServer();
    try {
      installImages(s, images, link ? images[1] : undefined);
      const expected = link ? 'ogLive' : images[0];
      const center = await addCenter(s);
      const room = await addRoom(s, center);
      await addClient(s, room, '192.168.1.10', 'aa:bb:cc:dd:ee:01', { livedir: images[2] });
      const before = withoutDatabase(allFiles(s.dir));
      for (const name of ['default', 'ogLive-9.9.9-r20990101', '../../etc/passwd', '/etc/passwd', `../tftpboot/${images[0]}`, '']) {
        await s.post('/live/set', { clients: ['192.168.1.10'], name: images[2] });
        const r = await s.post('/live/set', { clients: ['192.168.1.10'], name });
        assert.equal(r.status, 200, `${JSON.stringify(name)}: ${r.text}`);
        assert.equal(r.body.livedir, expected, `${JSON.stringify(name)} (link ${link}): the default applies`);
        const info = await s.get('/client/info', { client: ['192.168.1.10'] });
        assert.equal(info.body.livedir, expected, `${JSON.stringify(name)}: default stored`);
        assert.ok(
          readIfExists(biosFile(s, '01-AA-BB-CC-DD-EE-01'))!.includes(` oglivedir=${expected} `),
          `${JSON.stringify(name)}: boot file uses the default`,
        );
      }
      // A NUL cannot be in a directory name: refused for the whole REST interface, nothing changes.
      await s.post('/live/set', { clients: ['192.168.1.10'], name: images[2] });
      const nul = await s.post('/live/set', { clients: ['192.168.1.10'], name: `${images[0]}\u0000` });
      assert.deepEqual([nul.status, nul.body.field], [400, 'name'], `a NUL: ${nul.text}`);
      assert.equal((await s.get('/client/info', { client: ['192.168.1.10'] })).body.livedir, images[2], 'a NUL: livedir unchanged');
      assert.deepEqual(withoutDatabase(allFiles(s.dir)), before, 'no file added or removed anywhere under the temp dir');
    } finally {
      await s.close();
    }
  }
});

test('POST /live/set keeps going for a client whose boot mode has no template', async () => {
  // client/add refuses such a mode; a configured default can still name one.
  const s = await startServer({ config: { inventory: { default_boot: 'retired-mode' } } });
  try {
    installImages(s, images);
    const center = await addCenter(s);
    const room = await addRoom(s, center);
    await addClient(s, room, '192.168.1.10', 'aa:bb:cc:dd:ee:01');
    await addClient(s, room, '192.168.1.11', 'aa:bb:cc:dd:ee:02', { boot: 'ogLive' });
    const r = await s.post('/live/set', { clients: ['192.168.1.10', '192.168.1.11'], name: images[1] });
    assert.equal(r.status, 200, r.text);
    const info = await s.get('/client/info', { client: ['192.168.1.10'] });
    assert.equal(info.body.livedir, images[1], 'livedir stored even without a template');
    assert.equal(readIfExists(biosFile(s, '01-AA-BB-CC-DD-EE-01')), null, 'no file for the mode without a template');
    assert.ok(readIfExists(biosFile(s, '01-AA-BB-CC-DD-EE-02'))!.includes(` oglivedir=${images[1]} `), 'the other client rewritten');
    const bad = await s.post('/live/set', { clients: ['192.168.1.10'], name: 7 });
    assert.equal(bad.status, 400, 'a non-string name is refused');
    assert.equal(bad.body.field, 'name', 'the error names the field');
  } finally {
    await s.close();
  }
});

test.run();
