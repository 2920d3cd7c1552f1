// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { TftpListener } from '../../../plugins/tftp';
import { eventually } from '../../support/fake-agent';
import { addCenter, addClient, addRoom } from '../../support/fixtures';
import { parsePrometheus } from '../../support/prometheus';
import { type TestServer, startServer } from '../../support/server';
import {
  type Direction,
  atftpGet,
  blockOf,
  curlTftp,
  freeUdpPort,
  lossyRelay,
  startTftpdHpa,
  tftpHpaError,
  tftpHpaGet,
  tftpHpaPut,
} from '../../support/tftp-clients';

/**
 * The tftp plugin against real clients: Debian's tftp-hpa and atftp, and curl's tftp://, on
 * loopback and an ephemeral port. Loss is made by a relay between client and server.
 */

const tftpConfig = { ip: '127.0.0.1', port: 0, timeout_ms: 300, retries: 4, requests_per_minute: 0 };

async function tftpServer(extra: Record<string, unknown> = {}): Promise<{ s: TestServer; port: number; root: string }> {
  const s = await startServer({ config: { plugins: ['+tftp'], tftp: { ...tftpConfig, ...extra } } });
  const root = path.join(s.dir, 'tftpboot');
  mkdirSync(root, { recursive: true });
  return { s, port: s.app.container.resolve(TftpListener).port, root };
}

async function metrics(s: TestServer) {
  return parsePrometheus((await s.get('/metrics')).text);
}

test('tftp-hpa, atftp and curl fetch a file whole; blksize, tsize, timeout and windowsize are agreed within the limits', async () => {
  const { s, port, root } = await tftpServer();
  try {
    const bytes = randomBytes(300_001);
    writeFileSync(path.join(root, 'snponly.efi'), bytes);
    const out = (name: string) => path.join(s.dir, name);

    const plain = await tftpHpaGet(port, 'snponly.efi', out('hpa'));
    assert.equal(tftpHpaError(plain), undefined, plain.output);
    assert.ok(readFileSync(out('hpa')).equals(bytes), 'tftp-hpa: 512-byte blocks, no options');

    const curl = await curlTftp(port, 'snponly.efi', out('curl'), { blksize: 1024 });
    assert.equal(curl.code, 0, curl.output);
    assert.ok(readFileSync(out('curl')).equals(bytes), 'curl with blksize 1024 and tsize');

    const atftp = await atftpGet(port, 'snponly.efi', out('atftp'), ['blksize 65464', 'tsize enable', 'timeout 2', 'windowsize 100']);
    assert.equal(atftp.code, 0, atftp.output);
    assert.ok(readFileSync(out('atftp')).equals(bytes), 'atftp with options');
    const oack = /received OACK <([^>]*)>/.exec(atftp.output)?.[1] ?? '';
    const agreed = Object.fromEntries(oack.split(',').flatMap((o) => (o.includes(':') ? [o.split(':').map((p) => p.trim())] : [])));
    assert.deepEqual(
      agreed,
      { blksize: '1468', tsize: String(bytes.length), timeout: '2', windowsize: '64' },
      'blksize and windowsize cut to tftp.max_blksize and tftp.max_windowsize; the size told; the timeout taken',
    );
    assert.ok(/received \d+\. DATA <block: 1, size 1468>/.test(atftp.output), 'blocks of the agreed size');

    // A size the blocks divide exactly ends with an empty block.
    const exact = randomBytes(1468 * 8);
    writeFileSync(path.join(root, 'exact.bin'), exact);
    const windowed = await atftpGet(port, 'exact.bin', out('exact'), ['blksize 1468', 'windowsize 4']);
    assert.equal(windowed.code, 0, windowed.output);
    assert.ok(readFileSync(out('exact')).equals(exact), 'a file of whole blocks, in windows of 4');
    assert.ok(/DATA <block: 9, size 0>/.test(windowed.output), 'the empty last block');

    // netascii: line ends as CR LF, as tftpd-hpa sends them, and back for tftp-hpa.
    writeFileSync(path.join(root, 'notes.txt'), 'one\ntwo\n');
    const text = await tftpHpaGet(port, 'notes.txt', out('notes'), { netascii: true });
    assert.equal(tftpHpaError(text), undefined, text.output);
    assert.equal(readFileSync(out('notes'), 'utf8'), 'one\ntwo\n', 'netascii read back as the file is');

    const m = await metrics(s);
    assert.equal(m.value('ogserve_tftp_transfers_total', { outcome: 'done' }), 5, 'five transfers done');
    // netascii's two CRs are bytes sent.
    assert.equal(m.value('ogserve_tftp_bytes_total'), 3 * bytes.length + exact.length + 10, 'the bytes of each transfer, acknowledged');
  } finally {
    await s.close();
  }
});

test('a lost ACK, a lost block and a lost window end are sent again; the files arrive whole', async () => {
  const { s, port, root } = await tftpServer();
  try {
    const bytes = randomBytes(40 * 1024);
    writeFileSync(path.join(root, 'grubx64.efi'), bytes);
    const lost = (what: { op: number; block: number; direction: Direction }) => {
      let done = false;
      return (packet: Buffer, direction: Direction) => {
        const { op, block } = blockOf(packet);
        if (done || direction !== what.direction || op !== what.op || block !== what.block) return false;
        done = true;
        return true;
      };
    };
    const cases = [
      { client: 'tftp-hpa', lose: { op: 4, block: 3, direction: 'to-server' as const }, what: 'the ACK of block 3' },
      { client: 'atftp', lose: { op: 3, block: 5, direction: 'to-client' as const }, what: 'DATA block 5' },
      {
        client: 'atftp windowsize 8',
        lose: { op: 4, block: 16, direction: 'to-server' as const },
        what: 'the ACK ending the second window',
      },
    ];
    for (const [i, c] of cases.entries()) {
      const relay = await lossyRelay(port, lost(c.lose));
      const out = path.join(s.dir, `lossy-${i}`);
      try {
        const run =
          c.client === 'tftp-hpa'
            ? await tftpHpaGet(relay.port, 'grubx64.efi', out)
            : await atftpGet(relay.port, 'grubx64.efi', out, c.client.endsWith('8') ? ['blksize 512', 'windowsize 8'] : []);
        assert.equal(relay.dropped(), 1, `${c.client}: ${c.what} was lost`);
        assert.ok(readFileSync(out).equals(bytes), `${c.client}: the file whole although ${c.what} was lost: ${run.output.slice(-500)}`);
      } finally {
        relay.close();
      }
    }
    const m = await metrics(s);
    assert.equal(m.value('ogserve_tftp_transfers_total', { outcome: 'done' }), 3, 'each transfer done');
    assert.ok((m.value('ogserve_tftp_retransmits_total') ?? 0) >= 3, 'blocks sent again in each');
  } finally {
    await s.close();
  }
});

test('a file larger than tftp.shared_file_max_bytes is read from disk as it goes, in windows; tftp.allow leaves other addresses unanswered', async () => {
  const { s, port, root } = await tftpServer({ shared_file_max_bytes: 0, allow: ['127.0.0.0/30'] });
  try {
    const bytes = randomBytes(3 * 1024 * 1024 + 7);
    writeFileSync(path.join(root, 'oginitrd.img'), bytes);
    const out = path.join(s.dir, 'initrd');
    const run = await atftpGet(port, 'oginitrd.img', out, ['blksize 1468', 'windowsize 16']);
    assert.equal(run.code, 0, run.output.slice(-500));
    assert.ok(readFileSync(out).equals(bytes), 'read a chunk at a time, whole');
    const outside = await curlTftp(port, 'oginitrd.img', path.join(s.dir, 'outside'), { from: '127.0.66.9' });
    assert.notEqual(outside.code, 0, 'an address outside tftp.allow gets nothing');
    assert.ok(((await metrics(s)).value('ogserve_tftp_refused_total', { reason: 'not_allowed' }) ?? 0) >= 1, 'its requests counted');
  } finally {
    await s.close();
  }
});

test('a PC that stops answering is given up after tftp.retries; a PC that sends an error ends its transfer', async () => {
  const { s, port, root } = await tftpServer({ retries: 2, timeout_ms: 100 });
  const pc = dgram.createSocket('udp4');
  try {
    writeFileSync(path.join(root, 'undionly.kpxe'), randomBytes(5000));
    await new Promise<void>((resolve) => pc.bind(0, '127.0.0.1', () => resolve()));
    const heard: number[] = [];
    pc.on('message', (packet) => heard.push(blockOf(packet).block));
    pc.send(Buffer.from('\0\x01undionly.kpxe\0octet\0', 'latin1'), port, '127.0.0.1');
    await eventually(
      async () => (await metrics(s)).value('ogserve_tftp_transfers_total', { outcome: 'timed_out' }) === 1,
      'the transfer given up',
    );
    assert.deepEqual(heard, [1, 1, 1], 'block 1 sent, then again twice (tftp.retries), then nothing');

    // atftp asks tsize; a client that stops at the OACK with an error (as firmware does after
    // reading the size) ends the transfer at once.
    const probe = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => probe.bind(0, '127.0.0.1', () => resolve()));
    probe.on('message', (packet, from) => {
      if (packet.readUInt16BE(0) === 6) probe.send(Buffer.from('\0\x05\0\x08size read\0', 'latin1'), from.port, from.address);
    });
    probe.send(Buffer.from('\0\x01undionly.kpxe\0octet\0tsize\x000\0', 'latin1'), port, '127.0.0.1');
    await eventually(
      async () => (await metrics(s)).value('ogserve_tftp_transfers_total', { outcome: 'cut_short' }) === 1,
      'the probe ended',
    );
    probe.close();
  } finally {
    pc.close();
    await s.close();
  }
});

test('path tricks are refused: .., dot files, links out of the folder, writes; names GRUB and Windows clients send are served', async () => {
  const { s, port, root } = await tftpServer();
  try {
    mkdirSync(path.join(root, 'sub'));
    writeFileSync(path.join(root, 'sub', 'inner.cfg'), 'inner\n');
    writeFileSync(path.join(root, '.hidden'), 'secret\n');
    writeFileSync(path.join(s.dir, 'outside.txt'), 'outside\n');
    symlinkSync(path.join(s.dir, 'outside.txt'), path.join(root, 'link-out'));
    symlinkSync('sub/inner.cfg', path.join(root, 'link-in'));
    const get = async (name: string) => {
      const out = path.join(s.dir, 'got');
      writeFileSync(out, '');
      const run = await tftpHpaGet(port, name, out);
      return { error: tftpHpaError(run), text: readFileSync(out, 'utf8') };
    };
    for (const name of [
      '../outside.txt',
      'sub/../../outside.txt',
      '/../outside.txt',
      '..\\outside.txt',
      'sub/./inner.cfg',
      '.hidden',
      'sub//inner.cfg',
    ])
      assert.deepEqual(
        await get(name),
        { error: { code: 2, message: 'Access violation' }, text: '' },
        `${name}: refused by the path rules`,
      );
    assert.deepEqual(
      await get('link-out'),
      { error: { code: 1, message: 'File not found' }, text: '' },
      'a link out of the folder is not there',
    );
    assert.deepEqual(await get('sub'), { error: { code: 1, message: 'File not found' }, text: '' }, 'a folder is no file');
    assert.deepEqual(await get('%2e%2e/outside.txt'), { error: { code: 1, message: 'File not found' }, text: '' }, 'no decoding in TFTP');
    for (const name of ['sub/inner.cfg', '/sub/inner.cfg', '\\sub\\inner.cfg', 'link-in'])
      assert.deepEqual(await get(name), { error: undefined, text: 'inner\n' }, `${name}: served`);
    const put = await tftpHpaPut(port, path.join(s.dir, 'outside.txt'), 'new.txt');
    assert.deepEqual(tftpHpaError(put), { code: 2, message: 'This server is read-only' }, 'a write request refused');
    const m = await metrics(s);
    assert.equal(m.value('ogserve_tftp_refused_total', { reason: 'access' }), 7);
    assert.equal(m.value('ogserve_tftp_refused_total', { reason: 'write' }), 1);
  } finally {
    await s.close();
  }
});

test('what a site tftpd-hpa serves from its tftpboot, ogserve serves alike: per-PC GRUB and menu.lst files, loaders, live images', async (context) => {
  if (process.getuid?.() !== 0) return void console.log(`  skipped (${context.__test__}): tftpd-hpa --secure chroots: run as root`);
  const { s, port, root } = await tftpServer();
  const hpaPort = await freeUdpPort();
  try {
    const center = await addCenter(s);
    const room = await addRoom(s, center, 'Aula');
    await addClient(s, room, '127.0.77.20', '52:54:00:12:34:56');
    assert.equal((await s.post('/mode', { clients: ['127.0.77.20'], mode: 'ogLive' })).status, 200);
    mkdirSync(path.join(root, 'ogLive-5.15-r1'));
    writeFileSync(path.join(root, 'ogLive-5.15-r1', 'ogvmlinuz'), randomBytes(70_000));
    symlinkSync('ogLive-5.15-r1', path.join(root, 'ogLive'));
    writeFileSync(path.join(root, 'grldr'), randomBytes(3000));
    writeFileSync(path.join(root, 'grub', 'grub.cfg'), 'configfile $prefix/01-$net_default_mac\n');
    const hpa = await startTftpdHpa(root, hpaPort);
    try {
      const names = [
        'grub/01-52:54:00:12:34:56',
        'menu.lst/01-52-54-00-12-34-56',
        '/grub/01-52:54:00:12:34:56',
        'grub/grub.cfg',
        'grldr',
        'ogLive/ogvmlinuz',
        'ogLive-5.15-r1/ogvmlinuz',
        'grub/01-52:54:00:aa:bb:cc',
        'MENU.LST/01-52-54-00-12-34-56',
      ];
      for (const name of names) {
        const [ours, theirs] = [path.join(s.dir, 'ours'), path.join(s.dir, 'theirs')];
        writeFileSync(ours, '');
        writeFileSync(theirs, '');
        const [a, b] = [await tftpHpaGet(port, name, ours), await tftpHpaGet(hpaPort, name, theirs)];
        assert.deepEqual(
          { error: tftpHpaError(a)?.code, bytes: readFileSync(ours).toString('hex') },
          { error: tftpHpaError(b)?.code, bytes: readFileSync(theirs).toString('hex') },
          `${name}: as tftpd-hpa serves it`,
        );
      }
    } finally {
      await hpa.stop();
    }
  } finally {
    await s.close();
  }
});

test('a flood from one address gets tftp.requests_per_minute transfers and nothing more; another PC is served meanwhile', async () => {
  const { s, port, root } = await tftpServer({ requests_per_minute: 20, retries: 0, timeout_ms: 100 });
  const sockets: dgram.Socket[] = [];
  try {
    writeFileSync(path.join(root, 'snponly.efi'), randomBytes(10_000));
    let answers = 0;
    for (let i = 0; i < 100; i++) {
      const socket = dgram.createSocket('udp4');
      sockets.push(socket);
      await new Promise<void>((resolve) => socket.bind(0, '127.0.66.1', () => resolve()));
      socket.on('message', () => answers++);
      socket.send(Buffer.from('\0\x01snponly.efi\0octet\0', 'latin1'), port, '127.0.0.1');
    }
    await eventually(async () => (await metrics(s)).value('ogserve_tftp_refused_total', { reason: 'rate' }) === 80, 'the flood counted');
    const out = path.join(s.dir, 'other');
    const other = await curlTftp(port, 'snponly.efi', out, { from: '127.0.66.2' });
    assert.equal(other.code, 0, `another address served during the flood: ${other.output}`);
    assert.equal(readFileSync(out).length, 10_000);
    await eventually(
      async () => (await metrics(s)).value('ogserve_tftp_transfers_total', { outcome: 'timed_out' }) === 20,
      'the flood transfers given up',
    );
    assert.equal(answers, 20, 'only the first block of twenty transfers went back to the flooding address');
    assert.ok(
      s.logs.some((l) => l.level === 'warn' && /TFTP requests from 127\.0\.66\.1 dropped \(rate\)/.test(l.msg)),
      'the flood said once in the log',
    );
    assert.equal(s.logs.filter((l) => /dropped \(rate\)/.test(l.msg)).length, 1, 'once, not per packet');
  } finally {
    for (const socket of sockets) socket.close();
    await s.close();
  }
});

test('each transfer is a stage of the PC boot timeline: the loader, then its GRUB file (the script), then the kernel', async () => {
  const { s, port, root } = await tftpServer();
  try {
    const center = await addCenter(s);
    const room = await addRoom(s, center, 'Aula');
    await addClient(s, room, '127.0.77.21', '52:54:00:12:34:57');
    assert.equal((await s.post('/mode', { clients: ['127.0.77.21'], mode: 'ogLive' })).status, 200);
    writeFileSync(path.join(root, 'loader.efi'), randomBytes(2000));
    mkdirSync(path.join(root, 'ogLive'));
    writeFileSync(path.join(root, 'ogLive', 'ogvmlinuz'), randomBytes(9000));
    const out = path.join(s.dir, 'got');
    for (const name of ['loader.efi', 'grub/01-52:54:00:12:34:57', 'ogLive/ogvmlinuz']) {
      const run = await curlTftp(port, name, out, { from: '127.0.77.21' });
      assert.equal(run.code, 0, `${name}: ${run.output}`);
    }
    const grub = readFileSync(path.join(root, 'grub', '01-52:54:00:12:34:57')).length;
    const boots = (await eventually(async () => {
      const body = (await s.get('/boot/timeline?client=127.0.77.21')).body as { boots: { stages: { stage: string }[] }[] };
      return body.boots[0]?.stages.length === 3 ? body.boots : undefined;
    }, 'three stages'))!;
    assert.equal(boots.length, 1, 'one boot');
    assert.deepEqual(
      boots[0]!.stages.map(({ stage, bytes, cut_short }: any) => ({ stage, bytes, cut_short })),
      [
        { stage: 'loader', bytes: 2000, cut_short: false },
        { stage: 'script', bytes: grub, cut_short: false },
        { stage: 'kernel', bytes: 9000, cut_short: false },
      ],
    );
    const last = (await s.get('/boot/stages')).body.clients;
    assert.deepEqual(
      last.map((c: any) => [c.client, c.stage]),
      [['127.0.77.21', 'kernel']],
    );
  } finally {
    await s.close();
  }
});

test.run();
