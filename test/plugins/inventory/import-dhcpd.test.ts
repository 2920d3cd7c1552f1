import assert from 'node:assert/strict';
import { test } from 'uvu';
import { EventStreamClient } from '../../support/event-stream';
import { addCenter, addClient, addRoom } from '../../support/fixtures';
import { type TestServer, startServer } from '../../support/server';

/**
 * POST /client/import-dhcpd on one server for the file: each test uses networks of its own,
 * 10.<test>.x.x, and rooms whose networks hold them.
 */
let s: TestServer;
let center: number;

test.before(async () => {
  s = await startServer({ config: { inventory: { import_max_rows: 20 } } });
  center = await addCenter(s, 'Dhcpd');
});
test.after(() => s.close());

const importConf = (conf: string, extra: Record<string, unknown> = {}) => s.post('/client/import-dhcpd', { conf, ...extra });
const stored = async (ip: string) => {
  const r = await s.get('/client/info', { client: [ip] });
  return r.status === 200 ? r.body : undefined;
};
const outcome = (body: any) => body.rows.map((r: any) => [r.line, r.name, r.ok ? 'ok' : `${r.error} ${r.field}: ${r.message}`]);

test('each host goes in the room whose network holds it: by gateway, or by its clients; the others are refused naming the address', async () => {
  const byGateway = await addRoom(s, center, 'Aula 1', '255.255.255.0', { gateway: '10.1.1.1' });
  const byClients = await addRoom(s, center, 'Aula 2', '255.255.0.0');
  await addClient(s, byClients, '10.2.0.5', '00:01:00:00:00:05');
  await addRoom(s, center, 'Empty', '255.255.255.0');
  const twinA = await addRoom(s, center, 'Twin A', '255.255.255.0', { gateway: '10.1.4.1' });
  const twinB = await addRoom(s, center, 'Twin B', '255.255.255.0', { gateway: '10.1.4.254' });
  const events = await EventStreamClient.open(s.port, 'types=inventory.*');
  try {
    const conf = [
      'subnet 10.1.1.0 netmask 255.255.255.0 { option routers 10.1.1.1; }',
      'host pc1 { hardware ethernet 00:01:00:00:00:01; fixed-address 10.1.1.11; option host-name "aula1-pc1"; }',
      'host pc2 { hardware ethernet 0:1:0:0:0:2; fixed-address 10.2.7.12; }',
      'subnet 10.1.3.0 netmask 255.255.255.0 { option routers 10.1.3.1; }',
      'host pc3 { hardware ethernet 00:01:00:00:00:03; fixed-address 10.1.3.13; }',
      'host pc4 { hardware ethernet 00:01:00:00:00:04; fixed-address 10.1.4.14; }',
    ].join('\n');
    const r = await importConf(conf);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(outcome(r.body), [
      [2, 'aula1-pc1', 'ok'],
      [3, 'pc2', 'ok'],
      [
        5,
        'pc3',
        "unknown_id room: no room's network holds 10.1.3.13: add a room with gateway 10.1.3.1 and netmask 255.255.255.0 (the file's subnet 10.1.3.0 at line 4)",
      ],
      [
        6,
        'pc4',
        `conflict room: 10.1.4.14 is in the network of 2 rooms ('Twin A' id ${twinA}, 'Twin B' id ${twinB}): one room per network`,
      ],
    ]);
    assert.deepEqual([r.body.added, r.body.refused, r.body.dry_run], [2, 2, false]);
    assert.deepEqual([r.body.rows[0].room, r.body.rows[0].room_name, r.body.rows[0].mac], [byGateway, 'Aula 1', '00:01:00:00:00:01']);
    const pc1 = await stored('10.1.1.11');
    assert.deepEqual([pc1.name, pc1.mac, pc1.room, pc1.boot], ['aula1-pc1', '000100000001', byGateway, 'ogLive']);
    const pc2 = await stored('10.2.7.12');
    assert.deepEqual([pc2.name, pc2.mac, pc2.room], ['pc2', '000100000002', byClients]);
    assert.equal(await stored('10.1.3.13'), undefined);
    const announced = await events.waitFor((e) => e.type === 'inventory.created' && e.data.kind === 'client', 'the import announced');
    assert.deepEqual(announced.data, { kind: 'client', clients: ['10.1.1.11', '10.2.7.12'] });
  } finally {
    events.close();
  }
});

test('duplicates in the file and in the inventory, includes and malformed hosts are refused row by row; the rest is stored', async () => {
  const room = await addRoom(s, center, 'Dups', '255.255.255.0', { gateway: '10.3.0.1' });
  await addClient(s, room, '10.3.0.50', '00:03:00:00:00:50');
  const conf = [
    'include "/etc/dhcp/more.conf";',
    'group {',
    '  host a { hardware ethernet 00:03:00:00:00:01; fixed-address 10.3.0.1; }',
    '  host b { hardware ethernet 00:03:00:00:00:01; fixed-address 10.3.0.2; }',
    '  host c { hardware ethernet 00:03:00:00:00:03; fixed-address 10.3.0.1; }',
    '  host d { hardware ethernet 00:03:00:00:00:04; fixed-address 10.3.0.50; }',
    '  host e { hardware ethernet 00-03-00-00-00-50; fixed-address 10.3.0.5; }',
    '  host f { hardware ethernet ff:ff:ff:ff:ff:ff; fixed-address 10.3.0.6; }',
    '  host g { fixed-address 10.3.0.7; }',
    '  host h { hardware ethernet 00:03:00:00:00:08; fixed-address 10.3.0.8; }',
    '}',
  ].join('\n');
  const r = await importConf(conf);
  assert.equal(r.status, 200, r.text);
  const rows = outcome(r.body);
  assert.deepEqual(
    rows.map((row: string[]) => [row[0], row[1], String(row[2]).split(':')[0]]),
    [
      [1, '', 'invalid_field conf'],
      [3, 'a', 'ok'],
      [4, 'b', 'duplicate mac'],
      [5, 'c', 'duplicate ip'],
      [6, 'd', 'duplicate ip'],
      [7, 'e', 'duplicate mac'],
      [8, 'f', 'invalid_field mac'],
      [9, 'g', 'missing_field mac'],
      [10, 'h', 'ok'],
    ],
  );
  assert.match(rows[2][2], /the host at line 3 has mac 00:03:00:00:00:01 too/);
  assert.match(rows[4][2], /already has ip 10\.3\.0\.50/);
  assert.deepEqual([r.body.added, r.body.refused], [2, 7]);
  assert.ok(await stored('10.3.0.1'));
  assert.ok(await stored('10.3.0.8'));
  assert.equal(await stored('10.3.0.2'), undefined);
  // The same file again: what it stored is now in the inventory, so every host is refused.
  const again = await importConf(conf);
  assert.deepEqual([again.status, again.body.added, again.body.refused], [200, 0, 9]);
});

test('a dry run writes nothing and answers what the import would', async () => {
  await addRoom(s, center, 'Dry', '255.255.255.0', { gateway: '10.4.0.1' });
  const conf = 'host x { hardware ethernet 00:04:00:00:00:01; fixed-address 10.4.0.11; }\nhost y { fixed-address 10.4.0.12; }';
  const preview = await importConf(conf, { dry_run: true });
  assert.equal(preview.status, 200, preview.text);
  assert.deepEqual([preview.body.added, preview.body.refused, preview.body.dry_run], [1, 1, true]);
  assert.equal(await stored('10.4.0.11'), undefined, 'a dry run stores nothing');
  const done = await importConf(conf);
  assert.deepEqual({ ...preview.body, dry_run: false }, done.body);
  assert.ok(await stored('10.4.0.11'));
});

test('a room given takes every host, whatever its network, in a computer folder of that room if one is given', async () => {
  const room = await addRoom(s, center, 'Given', '255.255.255.0');
  const other = await addRoom(s, center, 'Other', '255.255.255.0');
  const folder = (await s.post('/folder/add', { name: 'Back row', room })).body.id;
  const elsewhere = (await s.post('/folder/add', { name: 'Elsewhere', room: other })).body.id;
  const conf =
    'host p { hardware ethernet 00:06:00:00:00:01; fixed-address 10.6.0.1; }\nhost q { hardware ethernet 00:06:00:00:00:02; fixed-address 10.66.0.2; }';
  const r = await importConf(conf, { room, folder_id: folder });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(outcome(r.body), [
    [1, 'p', 'ok'],
    [2, 'q', 'ok'],
  ]);
  assert.deepEqual([r.body.rows[1].room, r.body.rows[1].room_name], [room, 'Given']);
  const q = await stored('10.66.0.2');
  assert.deepEqual([q.room, q.folder_id], [room, folder]);
  const refused = async (extra: Record<string, unknown>) => {
    const answer = await importConf(conf.replace(/00:06/g, '00:07').replace(/10\.6/g, '10.7'), extra);
    return [answer.status, answer.body.error, answer.body.field];
  };
  assert.deepEqual(await refused({ room: 999999 }), [400, 'unknown_id', 'room']);
  assert.deepEqual(await refused({ room, folder_id: elsewhere }), [400, 'invalid_field', 'folder_id']);
  assert.deepEqual(await refused({ folder_id: folder }), [400, 'missing_field', 'room']);
  assert.deepEqual(await refused({ room: 'x' }), [400, 'invalid_field', 'room']);
});

test('bad bodies are 400s naming the field; a file that is not dhcpd.conf, without hosts or too long is refused whole', async () => {
  const refused = async (body: unknown) => {
    const r = await s.post('/client/import-dhcpd', body);
    return [r.status, r.body.error, r.body.field];
  };
  assert.deepEqual(await refused({}), [400, 'missing_field', 'conf']);
  assert.deepEqual(await refused({ conf: 5 }), [400, 'invalid_field', 'conf']);
  assert.deepEqual(await refused({ conf: 'host a {}', dry_run: 'yes' }), [400, 'invalid_field', 'dry_run']);
  assert.deepEqual(await refused({ conf: 'host a {\n hardware ethernet 00:11:22:33:44:55;' }), [400, 'invalid_field', 'conf']);
  const unclosed = await s.post('/client/import-dhcpd', { conf: 'host a {\n hardware ethernet 00:11:22:33:44:55;' });
  assert.equal(unclosed.body.message, "line 1: the block opened here is not closed: a '}' is missing");
  const none = await s.post('/client/import-dhcpd', { conf: '# nothing\nauthoritative;\n' });
  assert.deepEqual(
    [none.status, none.body.error, none.body.field, none.body.message],
    [400, 'missing_field', 'conf', 'the file has no host blocks'],
  );
  const many = Array.from({ length: 21 }, (_, i) => `host h${i} { hardware ethernet 00:05:00:00:00:${i}; fixed-address 10.5.0.${i + 1}; }`);
  const tooMany = await s.post('/client/import-dhcpd', { conf: many.join('\n') });
  assert.deepEqual([tooMany.status, tooMany.body.field], [400, 'conf']);
  assert.match(tooMany.body.message, /21 hosts; at most 20 .*inventory\.import_max_rows/);
  // Over rest.max_request_bytes (128 KiB): refused before it is read, as a CSV file is.
  const huge = await s.post('/client/import-dhcpd', { conf: `# ${'x'.repeat(200 * 1024)}\n` });
  assert.deepEqual([huge.status, huge.body.error], [413, 'payload_too_large']);
});

test('groups nested 5,000 deep are a 400 naming the line where they pass 64 levels, not a stack overflow', async () => {
  const deep = `${'group {\n'.repeat(5000)}host a { hardware ethernet 00:06:00:00:00:01; fixed-address 10.6.0.1; }\n${'}\n'.repeat(5000)}`;
  const r = await importConf(deep);
  assert.deepEqual(
    [r.status, r.body.error, r.body.field, r.body.message],
    [400, 'invalid_field', 'conf', 'line 65: blocks nest more than 64 deep here (a real dhcpd.conf nests a few)'],
    r.text,
  );
});

test.run();
