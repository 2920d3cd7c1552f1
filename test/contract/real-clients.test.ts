import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import type { FakeAgent } from '../support/fake-agent';
import { addClient, macFor } from '../support/fixtures';
import { startServer, TOKEN } from '../support/server';
import { createAnswer } from '../plugins/images/helpers';
import { expectedPacket } from '../plugins/wol/helpers';
import { lab, labNetmask, ogcpSettings } from './lab';
import * as ogcli from './ogcli';
import * as ogcp from './ogcp';
import { PythonClient, requestBytes, userAgent } from './python-client';
import * as read from './readers';

/**
 * The contract with the two existing REST clients (real-clients.md): every call ogCLI and
 * ogCP make, sent as python-requests sends it, with the bodies they build, and every field
 * they read checked the way they read it. Agents are fake ones on 127.0.1.x.
 */

test('python-requests on the wire: one connection per call, the raw key, JSON bodies on GET, \\u-escaped text both ways; a wrong key is 401', async () => {
  const s = await startServer();
  try {
    const py = new PythonClient(s.port);
    assert.equal(
      requestBytes(s.port, 'GET', '/client/info', { client: ['127.0.1.1'] }),
      `GET /client/info HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nUser-Agent: ${userAgent}\r\nAccept-Encoding: gzip, deflate\r\nAccept: */*\r\n` +
        `Connection: keep-alive\r\nAuthorization: ${TOKEN}\r\nContent-Length: 25\r\nContent-Type: application/json\r\n\r\n{"client": ["127.0.1.1"]}`,
      'the bytes requests writes for ogCLI `list client --client-ip 127.0.1.1`',
    );
    // json.dumps escapes non-ASCII; the name must come back as it was typed.
    await ogcp.addCenter(py, 'Escuela Técnica', 'edificio principal');
    const center = ogcp.nodesOfType(await py.read('/scopes'), 'center')[0];
    assert.equal(center.name, 'Escuela Técnica', 'a \\u-escaped name is stored and read back');
    await ogcp.addRoom(py, center.id, 'Aula 1', labNetmask);
    const room = ogcp.nodesOfType(await py.read('/scopes'), 'room')[0];
    await ogcp.addClient(py, {
      boot: 'ogLive',
      ip: '127.0.1.1',
      livedir: 'ogLive',
      mac: macFor(1),
      maintenance: false,
      name: 'pc01',
      netdriver: 'generic',
      netiface: 'eth0',
      netmask: labNetmask,
      remote: false,
      repo_id: 1,
      room: room.id,
      serial_number: '',
    });

    const info = await py.get('/client/info', { client: ['127.0.1.1'] });
    assert.equal(info.status, 200, info.text);
    assert.equal(info.json.ip, '127.0.1.1', 'the GET body selected the client');
    assert.equal(info.headers['content-length'], String(Buffer.byteLength(info.text)), 'framed by Content-Length');
    assert.match(info.headers['content-type'] ?? '', /^application\/json/, 'JSON content type');
    const scopes = await py.get('/scopes');
    assert.ok(/^[\x00-\x7f]*$/.test(scopes.text) && scopes.text.includes('\\u00e9'), 'non-ASCII answered as \\u escapes');

    const wrongKey = await new PythonClient(s.port, 'not-the-key').get('/scopes');
    assert.equal(wrongKey.status, 401, 'ogCLI exits with "401 HTTP status code"; ogCP drops the server');
  } finally {
    await s.close();
  }
});

test('ogCP builds and dismantles a site: centers, rooms, clients from its form and a dhcpd.conf import, deletes by string ids', async () => {
  const s = await startServer();
  try {
    const py = new PythonClient(s.port);
    await ogcp.addCenter(py, 'Escuela', 'edificio principal');
    const center = ogcp.nodesOfType(await py.read('/scopes'), 'center')[0];
    await ogcp.addRoom(py, center.id, 'Aula 1', '255.255.255.0');
    const room = ogcp.nodesOfType(await py.read('/scopes'), 'room')[0];
    assert.equal(room.name, 'Aula 1', 'room listed in its center');
    // ogCP's add-client form offers only repository 1 and always sends `repo_id: 1`: a fresh
    // server has it from its first start, as the reference's schema does.
    assert.deepEqual(
      read.repositories(await py.read('/repositories')).map((r) => [r.id, r.name, r.ip]),
      [[1, 'Default', '127.0.0.1']],
      'repository 1 "Default" at the server address (rest.ip) on a fresh server',
    );

    const modes = read.modes(await py.read('/mode'));
    assert.ok(modes.includes('ogLive') && modes.includes('pxe'), `the boot select offers ogLive and pxe: ${modes}`);
    await ogcp.addClient(py, {
      boot: 'ogLive',
      ip: '127.0.1.1',
      livedir: 'ogLive',
      mac: 'AABBCCDDEE01',
      maintenance: true,
      name: 'pc01',
      netdriver: 'generic',
      netiface: 'eth1',
      netmask: '255.255.255.0',
      remote: true,
      repo_id: 1,
      room: room.id,
      serial_number: 'SN-01',
    });
    await ogcp.importClients(
      py,
      room.id,
      'host pc02 { hardware ethernet 00:11:22:33:44:02; fixed-address 127.0.1.2; }\nhost pc03 { hardware ethernet 00:11:22:33:44:03; fixed-address 127.0.1.3; }\n',
    );

    const tree = await py.read('/scopes');
    read.scopes(tree);
    assert.deepEqual(
      ogcp.nodesOfType(tree, 'computer').map((c) => [c.name, c.ip]),
      [
        ['pc01', '127.0.1.1'],
        ['pc02', '127.0.1.2'],
        ['pc03', '127.0.1.3'],
      ],
      'computers under the room',
    );

    const form = await py.read('/client/info', { client: ['127.0.1.1'] });
    read.clientInfo(form);
    assert.deepEqual(
      { ...form, mac: form.mac.toLowerCase() },
      {
        ...form,
        name: 'pc01',
        ip: '127.0.1.1',
        mac: 'aabbccddee01',
        serial_number: 'SN-01',
        netmask: '255.255.255.0',
        livedir: 'ogLive',
        remote: true,
        maintenance: true,
        netiface: 'eth1',
        netdriver: 'generic',
        repo_id: 1,
        room: room.id,
        boot: 'ogLive',
        center: center.id,
      },
      'the details form shows what the add form sent',
    );
    const imported = await py.read('/client/info', { client: ['127.0.1.2'] });
    read.clientInfo(imported);
    assert.deepEqual(
      [
        imported.name,
        imported.mac.toLowerCase(),
        imported.boot,
        imported.livedir,
        imported.netiface,
        imported.netdriver,
        imported.netmask,
        imported.remote,
        imported.maintenance,
      ],
      ['pc02', '001122334402', 'pxe', 'ogLive', 'eth0', 'generic', '255.255.255.0', false, false],
      'the import defaults stored',
    );
    const details = await ogcp.clientDetails(py, '127.0.1.3');
    assert.deepEqual(details.setup, [], 'no disk setup before the agent reports one');

    await ogcp.deleteClients(py, ['127.0.1.3']);
    assert.deepEqual(
      ogcp.nodesOfType(await py.read('/scopes'), 'computer').map((c) => c.ip),
      ['127.0.1.1', '127.0.1.2'],
      'client deleted',
    );
    await ogcp.deleteRoom(py, String(room.id));
    assert.deepEqual(ogcp.nodesOfType(await py.read('/scopes'), 'room'), [], 'room deleted with its clients');
    assert.equal((await py.get('/client/info', { client: ['127.0.1.1'] })).status, 400, 'its clients are gone');
    await ogcp.deleteCenter(py, String(center.id));
    assert.deepEqual(await py.read('/scopes'), { scope: [] }, 'center deleted');
    await ogcp.deleteCenter(py, '999');
    await ogcp.deleteRoom(py, '999');
  } finally {
    await s.close();
  }
});

test("ogCLI's list commands: clients, scopes, modes, images, client, hardware and disks answer 200 with JSON objects", async () => {
  const x = await lab(1);
  try {
    const ip = x.ips[0]!;
    await x.connect(ip);
    assert.deepEqual(
      read.clients(await x.py.read('/clients')).map((c) => [c.addr, c.state]),
      [[ip, 'OPG']],
      'list clients',
    );
    read.scopes(await x.py.read('/scopes'));
    assert.ok(read.modes(await x.py.read('/mode')).length > 0, 'list modes');
    assert.deepEqual(read.listedImages(await x.py.read('/images')), [], 'list images');
    read.clientInfo(await x.py.read('/client/info', { client: [ip] }));
    assert.deepEqual(read.hardware(await x.py.read('/hardware', { client: [ip] })), [], 'list hardware: nothing inventoried yet');
    assert.equal(
      read.clientSetup(await x.py.read('/client/setup', { client: [ip] })).length,
      3,
      'list disks: the disk and its two partitions',
    );
  } finally {
    await x.close();
  }
});

test('ogCLI selections walk /scopes through folders: wol and set modes by center and room; ogCP sets a mode', async () => {
  const x = await lab(2);
  try {
    // A migrated site has folders: a room inside a room folder, a client inside a computer folder.
    const roomFolder = await x.s.post('/folder/add', { name: 'Planta 1', center: x.center });
    const room2 = await x.s.post('/room/add', { center: x.center, name: 'Aula 2', netmask: labNetmask, folder_id: roomFolder.body.id });
    const computerFolder = await x.s.post('/folder/add', { name: 'Fila A', room: room2.body.id });
    await addClient(x.s, room2.body.id, '127.0.1.3', macFor(3), { folder_id: computerFolder.body.id });
    await addClient(x.s, room2.body.id, '127.0.1.4', macFor(4));

    const tree = await x.py.read('/scopes');
    read.scopes(tree);
    // ogCLI collects the addresses in a set: their order does not matter.
    assert.deepEqual(
      (await ogcli.expand(x.py, { centerIds: [x.center] })).sort(),
      ['127.0.1.1', '127.0.1.2', '127.0.1.3', '127.0.1.4'],
      '--center-id reaches clients in folders',
    );
    assert.deepEqual(
      (await ogcli.expand(x.py, { roomIds: [room2.body.id] })).sort(),
      ['127.0.1.3', '127.0.1.4'],
      '--room-id finds a room inside a folder',
    );

    await ogcli.sendWol(x.py, { roomIds: [room2.body.id] });
    const packets = await x.broadcast.waitFor(2);
    assert.deepEqual(
      packets.map((p) => p.data.toString('hex')).sort(),
      [expectedPacket(macFor(3)), expectedPacket(macFor(4))].map((b) => b.toString('hex')).sort(),
      'one magic packet per client of the room, to the room broadcast',
    );

    await ogcli.setModes(x.py, 'pxe', { centerIds: [x.center] });
    for (const ip of ['127.0.1.1', '127.0.1.2', '127.0.1.3', '127.0.1.4'])
      assert.equal((await x.py.read('/client/info', { client: [ip] })).boot, 'pxe', `${ip} boots pxe`);
    await ogcp.setMode(x.py, ['127.0.1.1'], 'ogLive');
    assert.equal((await x.py.read('/client/info', { client: ['127.0.1.1'] })).boot, 'ogLive', 'ogCP set the mode back');
  } finally {
    await x.close();
  }
});

test('the dashboard reads /clients, /images, /oglive/list and /stats; a woken client shows WOL_SENT beside a connected one', async () => {
  const x = await lab(2);
  try {
    const [awake, asleep] = x.ips as [string, string];
    mkdirSync(path.join(x.s.dir, 'tftpboot', 'ogLive-focal-5.13.0-27-beta-amd64-r20210706'), { recursive: true });
    await x.connect(awake, { speed: 1000 });
    const unicast = await x.receiver(asleep);
    await ogcp.wol(x.py, 'unicast', [asleep]);
    assert.deepEqual((await unicast.waitFor(1))[0]!.data, expectedPacket(macFor(2)), 'unicast magic packet to the client');

    const board = await ogcp.dashboard(x.py);
    const listed = read.clients(board.clients).sort((p, q) => p.addr.localeCompare(q.addr));
    assert.deepEqual(
      listed.map((c) => [c.addr, c.state, c.speed, c.last_cmd.result]),
      [
        [awake, 'OPG', 1000, 'success'],
        [asleep, 'WOL_SENT', undefined, 'unknown'],
      ],
      'the connected client with its link speed, the woken one as WOL_SENT',
    );
    assert.deepEqual(read.dashboardImages(board.images), [], 'no images yet, disk figures present');
    assert.deepEqual(
      read.ogliveList(board.oglive).map((o) => o.directory),
      ['ogLive-focal-5.13.0-27-beta-amd64-r20210706'],
      'live images listed',
    );
    read.stats(board.stats);
  } finally {
    await x.close();
  }
});

test('ogCP sets the ogLive to a listed directory and to default', async () => {
  const x = await lab(1);
  try {
    const ip = x.ips[0]!;
    const live = path.join(x.s.dir, 'tftpboot');
    const [older, newer] = ['ogLive-5.0.0-i386-r20190601', 'ogLive-focal-5.13.0-27-beta-amd64-r20210706'];
    for (const dir of [older, newer]) mkdirSync(path.join(live, dir), { recursive: true });
    symlinkSync(newer, path.join(live, 'ogLive'));

    assert.deepEqual(await ogcp.ogliveChoices(x.py, [ip]), ['default', older, newer], 'the form offers default and every directory');
    await ogcp.setOglive(x.py, [ip], older);
    assert.equal((await x.py.read('/client/info', { client: [ip] })).livedir, older, 'the chosen directory stored');
    await ogcp.setOglive(x.py, [ip], 'default');
    const { oglive, default: index } = await x.py.read('/oglive/list');
    const livedir = (await x.py.read('/client/info', { client: [ip] })).livedir;
    assert.ok(livedir === 'ogLive' || livedir === oglive[index].directory, `default applied (livedir ${livedir})`);
  } finally {
    await x.close();
  }
});

test('power and refresh commands from both clients answer 200 and reach the agents', async () => {
  const x = await lab(4);
  try {
    const agents: FakeAgent[] = [];
    for (const ip of x.ips) agents.push(await x.connect(ip));
    const [a, b, c, d] = x.ips as [string, string, string, string];

    await ogcli.sendRefresh(x.py, [a]);
    await ogcp.command(x.py, '/refresh', [c]);
    await agents[0]!.waitFor('refresh', 1);
    await agents[2]!.waitFor('refresh', 1);

    await ogcli.sendPower(x.py, '/poweroff', { clientIps: [a] });
    await ogcli.sendPower(x.py, '/reboot', { clientIps: [b] });
    await ogcp.command(x.py, '/poweroff', [c]);
    await ogcp.command(x.py, '/reboot', [d]);
    assert.equal((await agents[0]!.waitFor('poweroff')).method, 'POST', 'ogCLI poweroff relayed');
    assert.equal((await agents[1]!.waitFor('reboot')).method, 'POST', 'ogCLI reboot relayed');
    assert.equal((await agents[2]!.waitFor('poweroff')).method, 'POST', 'ogCP poweroff relayed');
    assert.equal((await agents[3]!.waitFor('reboot')).method, 'POST', 'ogCP reboot relayed');
  } finally {
    await x.close();
  }
});

test('hardware: ogCP re-inventories with POST; the view and ogCLI `list hardware` read description and type', async () => {
  const x = await lab(1);
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    agent.on('hardware', { body: { hardware: 'cpu=Intel Core i5 3.2GHz\nmem=QEMU 8192MiB\n' } });
    await ogcp.command(x.py, '/hardware', [ip]);
    await agent.waitFor('hardware');
    await x.settled(ip);
    const expected = [
      { description: 'Intel Core i5 3.2GHz', type: 'Microprocesadores' },
      { description: 'QEMU 8192MiB', type: 'Memorias' },
    ];
    assert.deepEqual(read.hardware(await ogcp.hardwareView(x.py, ip)), expected, 'ogCP hardware view');
    assert.deepEqual(read.hardware(await x.py.read('/hardware', { client: [ip] })), expected, 'ogCLI list hardware');
  } finally {
    await x.close();
  }
});

test("software and sessions: ogCP updates and views a partition's software, lists sessions and starts one", async () => {
  const x = await lab(1);
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    assert.deepEqual(await ogcp.softwareChoices(x.py, ip), ['1 1', '1 2'], 'partitions offered by the software form');

    await ogcp.softwareUpdate(x.py, [ip], '1', '2');
    assert.deepEqual((await agent.waitFor('software')).body, { disk: '1', partition: '2' }, 'the agent is asked for disk 1 partition 2');
    await x.settled(ip);
    assert.deepEqual(
      read.software(await ogcp.softwareView(x.py, [ip], '1', '2')),
      ['bash 5.1', 'coreutils 8.32'],
      'the stored list, read with integer disk and partition',
    );

    const sessions = read.sessions(await ogcp.sessionForm(x.py, ip));
    assert.deepEqual(sessions, [{ disk: 1, partition: 2, name: 'Ubuntu 22.04 LTS' }], 'partitions with an OS are sessions');
    await ogcp.startSession(x.py, [ip], String(sessions[0].disk), String(sessions[0].partition));
    assert.deepEqual((await agent.waitFor('session')).body, { disk: '1', partition: '2' }, 'session relayed');
  } finally {
    await x.close();
  }
});

test("/client/setup as ogCLI `list disks` and ogCP's forms read it: integer fields, the disk first, codes in ogCP's tables", async () => {
  const x = await lab(1);
  try {
    const ip = x.ips[0]!;
    await x.connect(ip);
    const partitions = read.clientSetup(await x.py.read('/client/setup', { client: [ip] }));
    assert.deepEqual(
      partitions.map((p) => [p.disk, p.partition, p.code, p.filesystem, p.image]),
      [
        [1, 0, 2, 0, 0],
        [1, 1, 61184, 9, 0],
        [1, 2, 33536, 6, 0],
      ],
      'GPT disk, an EFI FAT32 partition and a Linux EXT4 one, no images',
    );
    assert.equal(read.ogcpSchemeCodes.get(partitions[0].code), 'GPT', 'the setup form preselects the disk scheme');
    assert.deepEqual(await ogcp.imagePartitionChoices(x.py, ip), ['1 1 61184', '1 2 33536'], 'the image forms offer "disk part code"');
  } finally {
    await x.close();
  }
});

test('partition & format, ogCLI: dos and gpt layouts with WINDOWS and CACHE, gaps and slots up to 4 filled with EMPTY', async () => {
  const x = await lab(1);
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    const gpt = await ogcli.setupDisk(x.py, {
      type: 'gpt',
      format: true,
      parts: ['1,EFI,FAT32,512M', '2,windows,ntfs,40G', '3,CACHE,CACHE,20G'],
      clientIps: [ip],
    });
    assert.deepEqual(
      gpt.partition_setup.map((p: any) => [p.partition, p.code, p.filesystem, p.size, p.format]),
      [
        ['1', 'EFI', 'FAT32', '512000', '1'],
        ['2', 'WINDOWS', 'NTFS', '40000000', '1'],
        ['3', 'CACHE', 'CACHE', '20000000', '1'],
        ['4', 'EMPTY', 'EMPTY', '0', '0'],
      ],
      'the body ogCLI built',
    );
    assert.deepEqual([gpt.cache, gpt.cache_size], ['1', '20000000'], 'cache keyed on the CACHE filesystem');
    const { clients: _gptClients, ...gptRelayed } = gpt;
    assert.deepEqual((await agent.waitFor('setup')).body, gptRelayed, 'the agent gets the layout as sent');
    await x.settled(ip);

    // A gap: ogCLI fills partition 1, then pads from "number of --part + 1" up to 4, so it
    // sends partition 2 twice. That is what it sends; the server passes it on.
    const dos = await ogcli.setupDisk(x.py, { type: 'dos', num: 1, format: ['2'], parts: ['2,LINUX,EXT4,1T'], clientIps: [ip] });
    assert.deepEqual(
      dos.partition_setup.map((p: any) => [p.partition, p.code, p.size, p.format]),
      [
        ['1', 'EMPTY', '0', '0'],
        ['2', 'LINUX', '1000000000', '1'],
        ['2', 'EMPTY', '0', '0'],
        ['3', 'EMPTY', '0', '0'],
        ['4', 'EMPTY', '0', '0'],
      ],
      'the gap before partition 2 and the slots up to 4 filled',
    );
    const { clients: _dosClients, ...dosRelayed } = dos;
    assert.deepEqual((await agent.waitFor('setup', 1)).body, dosRelayed, 'the agent gets the MSDOS layout');
  } finally {
    await x.close();
  }
});

test('partition & format, ogCP: its whole vocabulary, nine partitions, and a short layout padded to 4', async () => {
  const x = await lab(1);
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    const row = (partition: string, type: string, fs: string, size: number, format = true) => ({ partition, type, fs, size, format });
    const nine = await ogcp.setup(x.py, [ip], 1, 'GPT', [
      row('1', 'EFI', 'FAT32', 512_000),
      row('2', 'LINUX', 'EXT4', 20_000_000),
      row('3', 'LINUX-SWAP', 'LINUX-SWAP', 4_000_000),
      row('4', 'CACHE', 'CACHE', 30_000_000),
      row('5', 'NTFS', 'NTFS', 40_000_000),
      row('6', 'DATA', 'EXFAT', 1_000_000),
      row('7', 'LINUX-LVM', 'EXT4', 1_000_000, false),
      row('8', 'LINUX-RAID', 'EXT4', 1_000_000, false),
      row('9', 'WIN-RECOV', 'NTFS', 1_000_000),
    ]);
    assert.equal(nine.partition_setup.length, 9, 'nine entries, nothing to pad');
    assert.deepEqual([nine.cache, nine.cache_size], ['1', String(30_000_000 * 1024)], 'cache keyed on the CACHE type');
    const { clients: _nineClients, ...nineRelayed } = nine;
    assert.deepEqual((await agent.waitFor('setup')).body, nineRelayed, 'relayed as sent');
    await x.settled(ip);

    const short = await ogcp.setup(x.py, [ip], 1, 'MSDOS', [
      row('1', 'FAT32', 'FAT32', 100_000),
      row('2', 'HNTFS', 'NTFS', 100_000),
      row('3', 'EXTENDED', 'EMPTY', 500_000),
      row('5', 'HFAT32', 'FAT32', 100_000),
      row('6', 'HNTFS-WINRE', 'NTFS', 100_000),
      row('7', 'EMPTY', 'EMPTY', 0, false),
    ]);
    assert.deepEqual(
      short.partition_setup.map((p: any) => p.partition),
      ['1', '2', '3', '5', '6', '7', '4'],
      'partition 4 padded at the end',
    );
    assert.equal((await agent.waitFor('setup', 1)).body.partition_setup.length, 7, 'relayed');
  } finally {
    await x.close();
  }
});

/** An agent that answers image/create as a newer live agent and image/restore with the image it wrote. */
function imageAgent(agent: FakeAgent): void {
  agent.on('image/create', (request) => ({ body: createAnswer(request) }), true);
  agent.on(
    'image/restore',
    (request) => ({ body: { disk: request.body.disk, partition: request.body.partition, image_id: request.body.id } }),
    true,
  );
}

test('images, ogCP: create, list, update, restore with TIPTORRENT, client details, delete', async () => {
  const x = await lab(2);
  try {
    const [source, target] = x.ips as [string, string];
    const a = await x.connect(source);
    const b = await x.connect(target);
    imageAgent(a);
    imageAgent(b);

    const choices = await ogcp.imagePartitionChoices(x.py, source);
    const repositories = read.repositories(await x.py.read('/repositories'));
    assert.deepEqual(
      repositories.map((r) => [r.id, r.ip]),
      [[x.repository, x.repositoryIp]],
      'the repository select',
    );
    await ogcp.createImage(x.py, source, choices[1]!, 'ubuntu22', String(repositories[0].id), 'Ubuntu 22.04 lab');
    assert.deepEqual(
      (await a.waitFor('image/create')).body,
      { disk: '1', partition: '2', code: '33536', id: '0', name: 'ubuntu22', repository: x.repositoryIp },
      'relayed to the source',
    );
    await x.settled(source);

    const [image, ...others] = read.listedImages(await x.py.read('/images'));
    assert.deepEqual(others, [], 'one image');
    assert.deepEqual(
      [image.name, image.description, image.repo_id, image.center_id, image.group_id],
      ['ubuntu22', 'Ubuntu 22.04 lab', x.repository, x.center, 0],
      "the form's fields stored",
    );
    read.dashboardImages(await x.py.read('/images'));
    const details = await ogcp.clientDetails(x.py, source);
    assert.equal(details.setup.find((p) => p.partition === 2)?.image, image.id, 'the source partition shows the image');

    await ogcp.updateImage(x.py, source, choices[1]!, String(image.id));
    assert.deepEqual(
      (await a.waitFor('image/create', 1)).body,
      { disk: '1', partition: '2', code: '33536', id: String(image.id), name: 'ubuntu22', repository: x.repositoryIp },
      'update relayed with the existing id',
    );
    await x.settled(source);
    assert.deepEqual(
      (await x.py.read('/images')).images.map((i: any) => i.id),
      [image.id],
      'updated in place',
    );

    await ogcp.restoreImage(x.py, [target], '1 2', String(image.id));
    const restore = await b.waitFor('image/restore');
    assert.deepEqual(
      [restore.body.type, restore.body.name, restore.body.id, restore.body.repository],
      ['TIPTORRENT', 'ubuntu22', String(image.id), x.repositoryIp],
      'restore relayed',
    );
    await x.settled(target);
    assert.equal(
      (await ogcp.clientDetails(x.py, target)).setup.find((p) => p.partition === 2)?.image,
      image.id,
      'the restored partition shows the image',
    );

    await ogcp.deleteImage(x.py, String(image.id));
    assert.deepEqual((await x.py.read('/images')).images, [], 'image deleted');
    for (const ip of x.ips)
      assert.ok(
        (await ogcp.clientDetails(x.py, ip)).setup.every((p) => p.image === 0),
        `${ip}: no partition refers to the deleted image`,
      );
  } finally {
    await x.close();
  }
});

test('images, ogCLI: create with id "0" with and without --desc and --repo-id, restore with its server as repository in every type', async () => {
  const x = await lab(2);
  try {
    const [source, target] = x.ips as [string, string];
    const a = await x.connect(source);
    const b = await x.connect(target);
    imageAgent(a);
    imageAgent(b);
    assert.equal(x.repository, 1, "ogCLI's default --repo-id is 1");

    const variants: [ogcli.CreateImage, string][] = [
      [{ disk: '1', part: '2', name: 'bare', clientIp: source }, ''],
      [{ disk: '1', part: '2', name: 'described', desc: 'with description', clientIp: source }, 'with description'],
      [{ disk: '1', part: '1', name: 'efi', desc: 'repository given', repoId: '1', clientIp: source }, 'repository given'],
    ];
    for (const [index, [args, description]] of variants.entries()) {
      await ogcli.createImage(x.py, args);
      const relayed = await a.waitFor('image/create', index);
      assert.deepEqual(
        [relayed.body.name, relayed.body.id, relayed.body.repository],
        [args.name, '0', x.repositoryIp],
        `${args.name}: relayed to the repository`,
      );
      await x.settled(source);
      const stored = (await x.py.read('/images')).images.find((i: any) => i.name === args.name);
      assert.ok(stored, `${args.name} listed`);
      assert.deepEqual(
        [stored.description, stored.repo_id, stored.center_id],
        [description, 1, x.center],
        `${args.name}: description, repository and center`,
      );
    }
    const [bare] = read.listedImages(await x.py.read('/images'));

    const restores: [ogcli.RestoreImage, string][] = [
      [{ disk: '1', part: '2', id: bare.id, type: 'unicast', clientIps: [target] }, 'UNICAST'],
      [{ disk: '1', part: '2', id: bare.id, type: 'unicast-direct', roomIds: [x.room] }, 'UNICAST-DIRECT'],
      [{ disk: '1', part: '2', id: bare.id, centerIds: [x.center], repo: x.repositoryIp }, 'TIPTORRENT'],
    ];
    for (const [index, [args, type]] of restores.entries()) {
      await ogcli.restoreImage(x.py, args);
      const relayed = await b.waitFor('image/restore', index);
      assert.deepEqual([relayed.body.type, relayed.body.id, relayed.body.name], [type, String(bare.id), 'bare'], `restore ${type} relayed`);
      await x.settled(target);
      await x.settled(source);
    }
  } finally {
    await x.close();
  }
});

test("with ogCP's settings, /client/setup sizes are KB and /stats time.start is the uptime, as ogCP reads them", async () => {
  // ogCP shows size // 1024 as MB in its setup form and sends the form's figures back times
  // 1024 as KB, and shows time.start as a duration: it was written against the reference,
  // which answered both that way. The spec says bytes and an epoch second, the default.
  const x = await lab(1, ogcpSettings);
  try {
    const ip = x.ips[0]!;
    await x.connect(ip);
    const { partitions } = await x.py.read('/client/setup', { client: [ip] });
    assert.deepEqual(
      partitions.map((p: any) => [p.partition, p.size]),
      [
        [0, 104857600],
        [1, 524288],
        [2, 52428800],
      ],
      'sizes in KB, as the agent reported them',
    );
    const { time } = await x.py.read('/stats');
    assert.ok(time.start >= 0 && time.start < 600, `time.start is seconds since the service started: ${time.start}`);
  } finally {
    await x.close();
  }
});

test.run();
