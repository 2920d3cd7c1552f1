import assert from 'node:assert/strict';
import { test } from 'uvu';
import { addCenter, addClient, addRoom } from '../../support/fixtures';
import { withServer, type TestServer } from '../../support/server';

type Case = [method: string, path: string, body: unknown, field: string];

const long = 'x'.repeat(10_000);

/**
 * Names made only of invisible characters (C1 controls, zero-width spaces and joiners,
 * U+FEFF, soft hyphen, word joiner, Hangul filler, spaces of every kind) or holding a
 * control character anywhere.
 */
const invisibleNames = [
  '\u0085',
  '\u0080\u009f',
  '\u200b',
  '\u200b\u200c\u200d',
  '\ufeff',
  ' \u00ad ',
  '\u2060\u2063',
  '\u3164',
  '\u00a0\u2003\u3000',
  'Lab\u00851',
  'Lab\u0007',
];
const tooBig = 99_999_999_999;

/** Control characters a terminal acts on (ESC, BEL), DEL and C1 (CSI): refused in every text field. */
const controls = ['\u001b[2J', 'pc\u0007', 'a\u007fb', 'x\u009b1m'];
/** Line layout: refused in one-line fields and names, kept in comments. */
const layout = ['a\nb', 'a\tb', 'a\r\nb'];

/** Group MACs (the broadcast and multicast: the first octet odd) and the zero MAC, in every notation. */
const groupMacs = [
  'ff:ff:ff:ff:ff:ff',
  'FFFFFFFFFFFF',
  'ff-ff-ff-ff-ff-ff',
  '01:00:5e:00:00:fb',
  '33:33:00:00:00:01',
  '03:00:00:00:00:01',
  '00:00:00:00:00:00',
  '000000000000',
  '00-00-00-00-00-00',
];

/** Every inventory endpoint with wrong types, missing fields, huge and malformed values: 400 naming the field. */
const cases: Case[] = [
  ['POST', '/center/add', {}, 'name'],
  ['POST', '/center/add', { name: 12 }, 'name'],
  ['POST', '/center/add', { name: '' }, 'name'],
  ['POST', '/center/add', { name: long }, 'name'],
  ['POST', '/center/add', { name: 'ok', comment: 5 }, 'comment'],
  ['POST', '/center/delete', {}, 'id'],
  ['POST', '/center/delete', { id: 'abc' }, 'id'],
  ['POST', '/center/delete', { id: -1 }, 'id'],
  ['POST', '/center/delete', { id: 1.5 }, 'id'],
  ['POST', '/center/delete', { id: {} }, 'id'],
  ['POST', '/center/update', { name: 'x' }, 'id'],
  ['POST', '/center/update', { id: 1 }, 'name'],
  ['GET', '/center/info', { id: 'one' }, 'id'],
  ['GET', '/center/info', {}, 'id'],
  ['POST', '/room/add', { name: 'r', netmask: '255.255.255.0' }, 'center'],
  ['POST', '/room/add', { center: 1, netmask: '255.255.255.0' }, 'name'],
  ['POST', '/room/add', { center: 1, name: 'r' }, 'netmask'],
  ['POST', '/room/add', { center: 'one', name: 'r', netmask: '255.255.255.0' }, 'center'],
  ['POST', '/room/add', { center: 1, name: long, netmask: '255.255.255.0' }, 'name'],
  ['POST', '/room/add', { center: 1, name: 'r', netmask: '255.255.255.0', remote: 'yes' }, 'remote'],
  ['POST', '/room/add', { center: 1, name: 'r', netmask: '255.255.255.0', gateway: '10.0.0' }, 'gateway'],
  ['POST', '/room/add', { center: 1, name: 'r', netmask: '255.255.255.0', folder_id: 'x' }, 'folder_id'],
  ['POST', '/room/update', { name: 'x' }, 'id'],
  ['POST', '/room/update', { id: 1, netmask: '255.0.255.0' }, 'netmask'],
  ['POST', '/room/add', { center: 1, name: 'r', netmask: '0.0.0.0' }, 'netmask'],
  ['POST', '/room/update', { id: 1, netmask: '0.0.0.0' }, 'netmask'],
  ['GET', '/room/info', { id: [] }, 'id'],
  ['POST', '/room/delete', { id: null }, 'id'],
  ['POST', '/folder/add', { center: 1 }, 'name'],
  ['POST', '/folder/add', { name: 'f', center: 'x' }, 'center'],
  ['POST', '/folder/update', { id: 1 }, 'name'],
  ['POST', '/folder/delete', {}, 'id'],
  ['POST', '/folder/delete', { id: 0 }, 'id'],
  ['POST', '/folder/delete', { id: 65536 }, 'id'],
  ['POST', '/folder/update', { id: '131072', name: 'x' }, 'id'],
  ['POST', '/folder/add', { name: 'f', folder_id: 65536 }, 'folder_id'],
  ['POST', '/client/update', { id: 1, folder_id: 131072 }, 'folder_id'],
  ['POST', '/client/add', { mac: '020000000001', room: 1 }, 'ip'],
  ['POST', '/client/add', { ip: '10.0.0.1', room: 1 }, 'mac'],
  ['POST', '/client/add', { ip: '10.0.0.1', mac: '020000000001' }, 'room'],
  ['POST', '/client/add', { ip: '10.0.0.1', mac: '020000000001', room: 0 }, 'room'],
  ['POST', '/client/add', { ip: '10.0.0.1', mac: '020000000001', room: '0' }, 'room'],
  ['POST', '/client/add', { ip: '10.0.0.1', mac: '020000000001', room: '000' }, 'room'],
  ['POST', '/client/add', { ip: '999.0.0.1', mac: '020000000001', room: 1 }, 'ip'],
  ['POST', '/client/add', { ip: '10.0.0', mac: '020000000001', room: 1 }, 'ip'],
  ['POST', '/client/add', { ip: '10.00.0.1', mac: '020000000001', room: 1 }, 'ip'],
  ['POST', '/client/add', { ip: ' 10.0.0.1', mac: '020000000001', room: 1 }, 'ip'],
  ['POST', '/client/add', { ip: 167772161, mac: '020000000001', room: 1 }, 'ip'],
  ['POST', '/client/add', { ip: '10.0.0.1', mac: 'zz0000000001', room: 1 }, 'mac'],
  ['POST', '/client/add', { ip: '10.0.0.1', mac: '0200000000', room: 1 }, 'mac'],
  ['POST', '/client/add', { ip: '10.0.0.1', mac: '02:00:00:00:00:01:02', room: 1 }, 'mac'],
  ['POST', '/client/add', { ip: '10.0.0.1', mac: '02:00-00:00:00:01', room: 1 }, 'mac'],
  ['POST', '/client/add', { ip: '10.0.0.1', mac: '020000000001', room: 1, name: long }, 'name'],
  ['POST', '/client/add', { ip: '10.0.0.1', mac: '020000000001', room: 1, netiface: '../eth0' }, 'netiface'],
  ['POST', '/client/add', { ip: '10.0.0.1', mac: '020000000001', room: 1, livedir: '../../etc' }, 'livedir'],
  ['POST', '/client/add', { ip: '10.0.0.1', mac: '020000000001', room: 1, livedir: '/etc' }, 'livedir'],
  ['POST', '/client/add', { ip: '10.0.0.1', mac: '020000000001', room: 1, maintenance: 1 }, 'maintenance'],
  ['POST', '/client/add', { ip: '10.0.0.1', mac: '020000000001', room: 1, netmask: '255.0.255.0' }, 'netmask'],
  ['POST', '/client/update', { mac: '020000000001' }, 'id'],
  ['POST', '/client/update', { id: 1, ip: 'localhost' }, 'ip'],
  ['POST', '/client/add', { ip: '0.0.0.0', mac: '020000000001', room: 1 }, 'ip'],
  ['POST', '/client/add', { ip: '255.255.255.255', mac: '020000000001', room: 1 }, 'ip'],
  ['POST', '/client/add', { ip: '10.0.0.1', mac: '020000000001', room: 1, netmask: '0.0.0.0' }, 'netmask'],
  ['POST', '/client/update', { id: 1, ip: '0.0.0.0' }, 'ip'],
  ['POST', '/client/update', { id: 1, ip: '255.255.255.255' }, 'ip'],
  ['POST', '/client/update', { id: 1, netmask: '0.0.0.0' }, 'netmask'],
  ['POST', '/client/delete', {}, 'clients'],
  ['POST', '/client/delete', { clients: '10.0.0.1' }, 'clients'],
  ['POST', '/client/delete', { clients: [1] }, 'clients[0]'],
  ['POST', '/client/delete', { clients: ['10.0.0.1', 'bad'] }, 'clients[1]'],
  ['POST', '/client/move', { clients: ['10.0.0.1'] }, 'room'],
  ['POST', '/client/move', { room: 1 }, 'clients'],
  ['POST', '/client/repo', { clients: ['10.0.0.1'] }, 'id'],
  ['POST', '/client/server', { clients: ['10.0.0.1'], id: 'x' }, 'id'],
  ['GET', '/client/info', { client: '10.0.0.1' }, 'client'],
  ['GET', '/client/setup', {}, 'client'],
  ['POST', '/repository/add', { ip: '10.0.0.1' }, 'name'],
  ['POST', '/repository/add', { name: 'r' }, 'ip'],
  ['POST', '/repository/add', { name: 'r', ip: ['10.0.0.1', 'x'] }, 'ip'],
  ['POST', '/repository/update', { name: 'r', ip: '10.0.0.1' }, 'repo_id'],
  ['POST', '/repository/delete', { id: 'x' }, 'id'],
  // Integers past 2^31-1, as numbers and as strings: the database columns cannot hold them.
  ...([tooBig, String(tooBig)] as const).flatMap((big): Case[] => [
    ['POST', '/client/add', { ip: '10.0.0.1', mac: '020000000001', room: 1, hardware_id: big }, 'hardware_id'],
    ['POST', '/client/update', { id: 1, hardware_id: big }, 'hardware_id'],
    ['POST', '/repository/update', { repo_id: 1, name: 'r', ip: '10.9.0.1', center: big }, 'center'],
  ]),
  ['POST', '/client/update', { id: 1, hardware_id: 2 ** 31 }, 'hardware_id'],
  ['POST', '/client/update', { id: 1, hardware_id: '2147483648' }, 'hardware_id'],
  // The query parameter takes plain decimal digits only, as the body does; parseInt forgave these.
  ...['1abc', '1.5', '%201', '1e0', '0x1', '', '-1', '2147483648'].map((id): Case => ['GET', `/repositories?id=${id}`, undefined, 'id']),
  // Names that show as blank, or carry control characters (C1 as much as C0).
  ...invisibleNames.flatMap((name): Case[] => [
    ['POST', '/center/add', { name }, 'name'],
    ['POST', '/center/update', { id: 1, name }, 'name'],
    ['POST', '/room/add', { center: 1, name, netmask: '255.255.255.0' }, 'name'],
    ['POST', '/room/update', { id: 1, name }, 'name'],
    ['POST', '/folder/add', { name, center: 1 }, 'name'],
    ['POST', '/folder/update', { id: 1, name }, 'name'],
    ['POST', '/repository/add', { name, ip: '10.9.0.1' }, 'name'],
    ['POST', '/repository/update', { repo_id: 1, name, ip: '10.9.0.1' }, 'name'],
  ]),
  // A client's name follows the names' rule (it may be empty); one-line text holds no control character.
  ...[...controls, ...layout, '\u200b'].flatMap((name): Case[] => [
    ['POST', '/client/add', { ip: '10.0.0.1', mac: '020000000001', room: 1, name }, 'name'],
    ['POST', '/client/update', { id: 1, name }, 'name'],
  ]),
  ...[...controls, ...layout].flatMap((text): Case[] => [
    ...(['serial_number', 'boot', 'netdriver'] as const).flatMap((field): Case[] => [
      ['POST', '/client/add', { ip: '10.0.0.1', mac: '020000000001', room: 1, [field]: text }, field],
      ['POST', '/client/update', { id: 1, [field]: text }, field],
    ]),
    ...(['location', 'ntp', 'dns'] as const).flatMap((field): Case[] => [
      ['POST', '/room/add', { center: 1, name: 'r', netmask: '255.255.255.0', [field]: text }, field],
      ['POST', '/room/update', { id: 1, [field]: text }, field],
    ]),
  ]),
  // A comment may run over several lines, but holds no other control character.
  ...controls.flatMap((comment): Case[] => [
    ['POST', '/center/add', { name: 'c', comment }, 'comment'],
    ['POST', '/center/update', { id: 1, name: 'c', comment }, 'comment'],
  ]),
  ...groupMacs.flatMap((mac): Case[] => [
    ['POST', '/client/add', { ip: '10.0.0.1', mac, room: 1 }, 'mac'],
    ['POST', '/client/update', { id: 1, mac }, 'mac'],
  ]),
  ['POST', '/server', { ip: 'x' }, 'ip'],
  ['POST', '/server', { ip: '10.0.0.1', port: 70000 }, 'port'],
  ['DELETE', '/server', {}, 'id'],
];

test('bad input to every inventory endpoint answers 400 naming the field, and writes nothing', () =>
  withServer(async (s) => {
    // Id 1 of each exists, so a value misread as 1 would be acted on rather than refused.
    const center = await addCenter(s, 'Existing');
    const room = await addRoom(s, center, 'Room');
    await addClient(s, room, '10.9.9.9', '02000000ffff');
    assert.equal((await s.post('/repository/add', { name: 'repo', ip: '10.9.9.1' })).status, 200, 'repository added');
    const before = await snapshot(s);
    for (const [method, path, body, field] of cases) {
      const r = await s.request(method, path, body);
      const label = `${method} ${path} ${(JSON.stringify(body) ?? '').slice(0, 80)}`;
      assert.equal(r.status, 400, `${label}: status ${r.status} ${r.text.slice(0, 200)}`);
      assert.equal(r.body.field, field, `${label}: field in ${r.text.slice(0, 200)}`);
      assert.ok(
        ['invalid_field', 'missing_field'].includes(r.body.error),
        `${label}: refused as malformed, not looked up: ${r.text.slice(0, 200)}`,
      );
      assert.ok(typeof r.body.message === 'string' && r.body.message.length > 0, `${label}: message`);
    }
    assert.equal(await snapshot(s), before, 'nothing written');
  }));

test('a comment keeps its tab and line breaks; a client may have no name, but not a blank one', () =>
  withServer(async (s) => {
    const comment = 'first line\r\n\tsecond line\nthird';
    const r = await s.post('/center/add', { name: 'Campus', comment });
    assert.equal(r.status, 200, r.text);
    assert.equal((await s.get('/center/info', { id: r.body.id })).body.comment, comment, 'stored as sent');
    const room = await addRoom(s, r.body.id, 'Room');
    const unnamed = await s.post('/client/add', { ip: '10.0.0.2', mac: '020000000002', room, name: '' });
    assert.equal(unnamed.status, 200, `an empty name leaves the client unnamed: ${unnamed.text}`);
    const blank = await s.post('/client/add', { ip: '10.0.0.3', mac: '020000000003', room, name: ' \u200b ' });
    assert.equal(blank.status, 400, 'a name that shows as blank is refused');
    assert.equal(blank.body.field, 'name');
  }));

test("a broadcast, multicast or zero MAC is refused with why; any card's own MAC is taken", () =>
  withServer(async (s) => {
    const room = await addRoom(s, await addCenter(s, 'Campus'), 'Room');
    const broadcast = await s.post('/client/add', { ip: '10.0.0.2', mac: 'ff:ff:ff:ff:ff:ff', room });
    assert.equal(broadcast.status, 400);
    assert.deepEqual(broadcast.body, {
      error: 'invalid_field',
      message:
        "'mac' must be a single card's MAC: not the broadcast ff:ff:ff:ff:ff:ff, a multicast MAC (first octet odd) or 00:00:00:00:00:00",
      field: 'mac',
    });
    const malformed = await s.post('/client/add', { ip: '10.0.0.2', mac: 'ff:ff:ff', room });
    assert.equal(malformed.body.message, "'mac' must be a valid mac", 'a malformed MAC is told apart');
    // Locally administered (02:...) and vendor MACs whose first octet is even are single cards.
    for (const [i, mac] of ['02:00:00:00:00:01', 'fe:ff:ff:ff:ff:ff', '00:00:00:00:00:01', 'AC-DE-48-00-11-22'].entries()) {
      const r = await s.post('/client/add', { ip: `10.0.0.${10 + i}`, mac, room });
      assert.equal(r.status, 200, `${mac}: ${r.text}`);
    }
  }));

/** What the table's requests could change: the tree, the client's record and the repositories. */
async function snapshot(s: TestServer): Promise<string> {
  const reads = [s.get('/scopes'), s.get('/client/info', { client: ['10.9.9.9'] }), s.get('/repositories')];
  return (await Promise.all(reads)).map((r) => r.text).join('\n');
}

test.run();
