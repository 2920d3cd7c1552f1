import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { test } from 'uvu';
import { addCenter, addClient, addRoom } from '../../support/fixtures';
import { makeTestDir, removeTestStore, startServer, type TestServer } from '../../support/server';
import { connectSide } from '../../support/test-db';
import { allFiles, biosFile, bootDirs, readIfExists, uefiFile } from './support';

const BIOS = '01-AA-BB-CC-DD-EE-01';
const UEFI = '01-aa:bb:cc:dd:ee:01';

/** A client in a room with every network setting, and a repository. */
async function fixture(s: TestServer, extra: Record<string, unknown> = {}): Promise<number> {
  const center = await addCenter(s);
  const room = await addRoom(s, center, 'Aula 1', '255.255.255.0', { gateway: '192.168.1.1', ntp: '192.168.1.2', dns: '192.168.1.3' });
  const repo = await s.post('/repository/add', { name: 'repo', ip: '192.168.1.4' });
  assert.equal(repo.status, 200, `repository/add: ${repo.text}`);
  return addClient(s, room, '192.168.1.10', 'aa:bb:cc:dd:ee:01', { name: 'pc-1', netiface: 'eth0', repo_id: repo.body.id, ...extra });
}

const params =
  'LANG=es_ES.UTF-8 ip=192.168.1.10:127.0.0.1:192.168.1.1:255.255.255.0:pc-1:eth0:none group=Aula_1 ogrepo=192.168.1.4' +
  ' oglive=127.0.0.1 oglog=127.0.0.1 ogshare=127.0.0.1 oglivedir=ogLive ogprof=false ogntp=192.168.1.2 ogdns=192.168.1.3 vga=788';

const config = { 'pxe-modes': { lang: 'es_ES.UTF-8' } };

test('a client added via /client/add gets both boot files of its default ogLive mode, exact names and contents', async () => {
  const s = await startServer({ config });
  try {
    await fixture(s);
    assert.equal(
      readIfExists(biosFile(s, BIOS)),
      [
        '##NO-TOCAR-ESTA-LINEA ogLive',
        'timeout 1',
        'title OpenGnsys-NET ogLive',
        'keeppxe',
        `kernel (pd)/ogLive/ogvmlinuz ro boot=oginit quiet splash irqpoll acpi=on og2nd=sqfs ogprotocol=smb ogactiveadmin=false ogdebug=false ${params}`,
        'initrd (pd)/ogLive/oginitrd.img',
        'boot',
        '',
      ].join('\n'),
      'legacy-firmware file: upper-case dashed MAC name, grub4dos menu with the boot parameters',
    );
    assert.equal(
      readIfExists(uefiFile(s, UEFI)),
      [
        '##NO-TOCAR-ESTA-LINEA ogLive',
        'set ISODIR=ogLive',
        `linux (tftp)/$ISODIR/ogvmlinuz ro boot=oginit quiet splash irqpoll acpi=on og2nd=sqfs ogprotocol=smb ogactiveadmin=false ogdebug=false ogtmpfs=15 ${params}`,
        'initrd (tftp)/$ISODIR/oginitrd.img',
        'boot',
        '',
      ].join('\n'),
      'UEFI file: lower-case colon MAC name, GRUB config with the boot parameters',
    );
    assert.deepEqual(allFiles(bootDirs(s).bios), [BIOS], 'no temp file or other file left in the BIOS dir');
    assert.deepEqual(allFiles(bootDirs(s).uefi), [UEFI], 'no temp file or other file left in the UEFI dir');
  } finally {
    await s.close();
  }
});

test('GET /mode lists one mode per shipped BIOS template, sorted', async () => {
  const s = await startServer();
  try {
    const r = await s.get('/mode');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.body,
      { modes: ['00unknown', '10', '11', '12', '13', '19pxeADMIN', 'ogLive', 'pxe'] },
      'the reference modes plus ogLive',
    );
  } finally {
    await s.close();
  }
});

test('POST /mode writes both files for every shipped mode and records the boot mode', async () => {
  const s = await startServer({ config });
  try {
    await fixture(s);
    const { body } = await s.get('/mode');
    for (const mode of body.modes as string[]) {
      const r = await s.post('/mode', { clients: ['192.168.1.10'], mode });
      assert.equal(r.status, 200, `${mode}: ${r.text}`);
      assert.deepEqual(r.body, { unknown: [] }, `${mode}: no unknown client`);
      for (const [kind, file] of [
        ['bios', biosFile(s, BIOS)],
        ['uefi', uefiFile(s, UEFI)],
      ] as const) {
        const text = readIfExists(file);
        assert.ok(text, `${mode}/${kind}: file written`);
        assert.match(text, /^##NO-TOCAR-ESTA-LINEA \S+\n/, `${mode}/${kind}: reference first line`);
        assert.ok(!text.includes('<%') && !text.includes('%>'), `${mode}/${kind}: no ejs tag left`);
        if (text.includes('ogvmlinuz')) assert.ok(text.includes(params), `${mode}/${kind}: a live image boot carries the parameters`);
      }
      const info = await s.get('/client/info', { client: ['192.168.1.10'] });
      assert.equal(info.body.boot, mode, `${mode}: client boot field updated`);
    }
    const pxe = await s.post('/mode', { clients: ['192.168.1.10'], mode: '11' });
    assert.equal(pxe.status, 200, pxe.text);
    assert.match(readIfExists(biosFile(s, BIOS))!, /chainloader \(hd0,0\)\+1/, 'mode 11 boots the first partition of the first disk');
  } finally {
    await s.close();
  }
});

test('POST /mode reports unknown addresses and still writes for the known ones', async () => {
  const s = await startServer({ config });
  try {
    await fixture(s);
    const r = await s.post('/mode', { clients: ['10.9.9.9', '192.168.1.10'], mode: '10' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { unknown: ['10.9.9.9'] }, 'the unknown address is reported');
    assert.match(readIfExists(uefiFile(s, UEFI))!, /NO-TOCAR-ESTA-LINEA 1hd/, 'the known client got mode 10');
  } finally {
    await s.close();
  }
});

test('vga is 788 unless the site sets a mode; a non-numeric setting becomes video=', async () => {
  for (const [vga, expected, absent] of [
    ['', ' vga=788', 'video='],
    ['791', ' vga=791', 'vga=788'],
    ['1024x768-32', ' video=1024x768-32', 'vga='],
  ] as const) {
    const s = await startServer({ config: { 'pxe-modes': { lang: 'C', vga } } });
    try {
      await fixture(s);
      const text = readIfExists(biosFile(s, BIOS))!;
      assert.ok(text.includes(expected), `vga '${vga}': ${expected} present`);
      assert.ok(!text.includes(absent), `vga '${vga}': ${absent} absent`);
    } finally {
      await s.close();
    }
  }
});

test('accented letters are transliterated, tabs and newlines dropped, spaces become _', async () => {
  // REST refuses control characters in names; a record written before that rule (or by
  // another tool) may still hold them, and its boot file must keep its lines.
  const dir = makeTestDir();
  try {
    const first = await startServer({ config, dir });
    try {
      const room = await addRoom(first, await addCenter(first), 'Aula Ñandú çà', '255.255.255.0');
      await addClient(first, room, '192.168.1.10', 'aa:bb:cc:dd:ee:01', { name: 'pc boot Évil one', netiface: 'eth0' });
    } finally {
      await first.close();
    }
    const side = await connectSide(dir);
    try {
      await side.query('update clients set name = ? where ip = ?', ['pc\nboot\tÉvil one', '192.168.1.10']);
    } finally {
      await side.close();
    }
    // The start puts the boot file in step with the record.
    const s = await startServer({ config, dir });
    try {
      const text = readIfExists(biosFile(s, BIOS))!;
      assert.ok(text.includes(' group=Aula_Nandu_ca '), `room name transliterated: ${text}`);
      assert.ok(text.includes(':pcbootEvil_one:eth0:none '), `a newline in the client name cannot add a menu line: ${text}`);
      assert.equal(text.split('\n').length, 8, 'the file keeps the template line count');
    } finally {
      await s.close();
    }
  } finally {
    await removeTestStore(dir);
  }
});

test('server_ip from config is used in the boot parameters', async () => {
  const s = await startServer({ config: { 'pxe-modes': { lang: 'C', server_ip: '10.0.0.1' } } });
  try {
    await fixture(s);
    const text = readIfExists(uefiFile(s, UEFI))!;
    assert.ok(text.includes('ip=192.168.1.10:10.0.0.1:') && text.includes(' oglive=10.0.0.1 oglog=10.0.0.1 ogshare=10.0.0.1 '), text);
  } finally {
    await s.close();
  }
});

test('boot files go when the client is deleted', async () => {
  const s = await startServer({ config });
  try {
    await fixture(s);
    assert.ok(readIfExists(biosFile(s, BIOS)) && readIfExists(uefiFile(s, UEFI)), 'files exist before');
    const r = await s.post('/client/delete', { clients: ['192.168.1.10'] });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(allFiles(bootDirs(s).bios), [], 'BIOS file deleted');
    assert.deepEqual(allFiles(bootDirs(s).uefi), [], 'UEFI file deleted');
  } finally {
    await s.close();
  }
});

test('a MAC change removes the old files and writes new ones; an IP change rewrites them', async () => {
  const s = await startServer({ config });
  try {
    const id = await fixture(s);
    let r = await s.post('/client/update', { id, mac: '02:00:00:00:00:99' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(allFiles(bootDirs(s).bios), ['01-02-00-00-00-00-99'], 'only the new BIOS file');
    assert.deepEqual(allFiles(bootDirs(s).uefi), ['01-02:00:00:00:00:99'], 'only the new UEFI file');
    r = await s.post('/client/update', { id, ip: '192.168.1.77' });
    assert.equal(r.status, 200, r.text);
    const text = readIfExists(biosFile(s, '01-02-00-00-00-00-99'))!;
    assert.ok(text.includes(' ip=192.168.1.77:') && !text.includes('192.168.1.10'), 'the file carries the new IP only');
  } finally {
    await s.close();
  }
});

test('GET /efi tells per known client whether its UEFI and its BIOS boot file exist', async () => {
  const s = await startServer({ config });
  try {
    const center = await addCenter(s);
    const room = await addRoom(s, center);
    await addClient(s, room, '192.168.1.10', 'aa:bb:cc:dd:ee:01');
    await addClient(s, room, '192.168.1.11', 'aa:bb:cc:dd:ee:02');
    rmSync(uefiFile(s, '01-aa:bb:cc:dd:ee:02'));
    rmSync(biosFile(s, '01-AA-BB-CC-DD-EE-01'));
    const r = await s.get('/efi', { clients: ['192.168.1.10', '192.168.1.11', '10.1.1.1'] });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.body,
      {
        clients: [
          { ip: '192.168.1.10', efi: true, bios: false },
          { ip: '192.168.1.11', efi: false, bios: true },
        ],
      },
      'unknown address left out',
    );
    const bad = await s.get('/efi', { clients: ['not-an-ip'] });
    assert.equal(bad.status, 400, 'malformed address refused');
  } finally {
    await s.close();
  }
});

test('client/add and client/update refuse a boot mode GET /mode does not list, before anything is written', async () => {
  const s = await startServer({ config });
  try {
    const center = await addCenter(s);
    const room = await addRoom(s, center);
    for (const boot of ['bogus', '../../etc/passwd', '']) {
      const r = await s.post('/client/add', { name: 'pc', ip: '192.168.1.20', mac: 'aa:bb:cc:dd:ee:20', room, boot });
      assert.equal(r.status, 400, `add with boot ${JSON.stringify(boot)}: ${r.text}`);
      assert.equal(r.body.field, 'boot', 'the error names boot');
    }
    assert.equal((await s.get('/client/info', { client: ['192.168.1.20'] })).status, 400, 'no client was added');
    assert.equal(readIfExists(biosFile(s, '01-AA-BB-CC-DD-EE-20')), null, 'no BIOS file written');
    assert.equal(readIfExists(uefiFile(s, '01-aa:bb:cc:dd:ee:20')), null, 'no UEFI file written');

    const id = await addClient(s, room, '192.168.1.10', 'aa:bb:cc:dd:ee:01');
    const files = [readIfExists(biosFile(s, BIOS)), readIfExists(uefiFile(s, UEFI))];
    const r = await s.post('/client/update', { id, ip: '192.168.1.11', boot: 'bogus2' });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.field, 'boot', 'the error names boot');
    const info = await s.get('/client/info', { client: ['192.168.1.10'] });
    assert.equal(info.status, 200, 'the client keeps its IP');
    assert.equal(info.body.boot, 'ogLive', 'and its boot mode');
    assert.deepEqual([readIfExists(biosFile(s, BIOS)), readIfExists(uefiFile(s, UEFI))], files, 'both boot files kept as they were');
  } finally {
    await s.close();
  }
});

test('a client whose stored boot mode has no template (a configured default) gets no files, and a warning', async () => {
  const s = await startServer({ config: { ...config, inventory: { default_boot: 'retired-mode' } } });
  try {
    const center = await addCenter(s);
    const room = await addRoom(s, center);
    await addClient(s, room, '192.168.1.10', 'aa:bb:cc:dd:ee:01');
    assert.equal((await s.get('/client/info', { client: ['192.168.1.10'] })).body.boot, 'retired-mode', 'the default is stored');
    assert.equal(readIfExists(biosFile(s, BIOS)), null, 'no BIOS file');
    assert.ok(
      s.logs.some((l) => l.level === 'warn' && l.msg.includes('no template')),
      'a warning is logged',
    );
  } finally {
    await s.close();
  }
});

test('client/update with a new boot mode rewrites both boot files with that mode', async () => {
  const s = await startServer({ config });
  try {
    const id = await fixture(s, { boot: '10' });
    const before = [readIfExists(biosFile(s, BIOS)), readIfExists(uefiFile(s, UEFI))];
    const r = await s.post('/client/update', { id, boot: 'pxe' });
    assert.equal(r.status, 200, r.text);
    assert.equal((await s.get('/client/info', { client: ['192.168.1.10'] })).body.boot, 'pxe', 'boot stored');
    const after = [readIfExists(biosFile(s, BIOS)), readIfExists(uefiFile(s, UEFI))];
    assert.notDeepEqual(after[0], before[0], 'the BIOS file changed');
    assert.notDeepEqual(after[1], before[1], 'the UEFI file changed');
    // What POST /mode writes for pxe is the reference for the pxe template's output.
    assert.equal((await s.post('/mode', { clients: ['192.168.1.10'], mode: '10' })).status, 200);
    assert.equal((await s.post('/mode', { clients: ['192.168.1.10'], mode: 'pxe' })).status, 200);
    assert.deepEqual(after, [readIfExists(biosFile(s, BIOS)), readIfExists(uefiFile(s, UEFI))], 'both files are the pxe ones');
  } finally {
    await s.close();
  }
});

test.run();
