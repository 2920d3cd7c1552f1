import assert from 'node:assert/strict';
import { test } from 'uvu';
import { EventStreamClient } from '../../support/event-stream';
import { addCenter, addClient, addRoom } from '../../support/fixtures';
import { type TestServer, startServer } from '../../support/server';

/**
 * POST /client/import on one server for the file (a fresh database per test would make it
 * slow on MariaDB and PostgreSQL): each test uses addresses of its own, 10.<test>.x.x. Its
 * answers are capped at 4,096 bytes, which only the test of that cap reaches.
 */
let s: TestServer;
let center: number;
/** Room 'Lab 1' (unique name); two rooms named 'Aula', one per center, are added beside it. */
let lab: number;

test.before(async () => {
  s = await startServer({ config: { inventory: { import_max_rows: 10 }, rest: { max_response_bytes: 4096 } } });
  center = await addCenter(s, 'One');
  lab = await addRoom(s, center, 'Lab 1');
  await addRoom(s, center, 'Aula');
  await addRoom(s, await addCenter(s, 'Two'), 'Aula');
});
test.after(() => s.close());

const importCsv = (csv: string, extra: Record<string, unknown> = {}) => s.post('/client/import', { csv, ...extra });
const stored = async (ip: string) => {
  const r = await s.get('/client/info', { client: [ip] });
  return r.status === 200 ? r.body : undefined;
};

test('a good file stores every client, with the optional columns, and announces them once', async () => {
  const events = await EventStreamClient.open(s.port, 'types=inventory.*');
  try {
    const repo = (await s.post('/repository/add', { name: 'csv-repo', ip: '10.1.255.1' })).body.id;
    const csv = [
      'name,ip,mac,room,repo_id,maintenance,netiface,serial_number',
      `pc-1,10.1.0.1,00:01:00:00:00:01,Lab 1,${repo},true,eth0,SN1`,
      `pc-2,10.1.0.2,00-01-00-00-00-02,${lab},,0,,`,
      `,10.1.0.3,000100000003,Lab 1,,,,`,
    ].join('\n');
    const r = await importCsv(csv);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, {
      rows: [
        { line: 2, ip: '10.1.0.1', name: 'pc-1', ok: true },
        { line: 3, ip: '10.1.0.2', name: 'pc-2', ok: true },
        { line: 4, ip: '10.1.0.3', name: '', ok: true },
      ],
      added: 3,
      refused: 0,
      dry_run: false,
    });
    const first = await stored('10.1.0.1');
    assert.deepEqual(
      [first.name, first.mac, first.room, first.repo_id, first.maintenance, first.netiface, first.serial_number, first.boot],
      ['pc-1', '000100000001', lab, repo, true, 'eth0', 'SN1', 'ogLive'],
      'every column as /client/add stores it; an empty cell gets its default',
    );
    const second = await stored('10.1.0.2');
    assert.deepEqual([second.name, second.room, second.maintenance, second.repo_id], ['pc-2', lab, false, 0]);
    assert.equal((await stored('10.1.0.3')).name, '');
    const announced = await events.waitFor((e) => e.type === 'inventory.created' && e.data.kind === 'client', 'the import announced');
    assert.deepEqual(announced.data, { kind: 'client', clients: ['10.1.0.1', '10.1.0.2', '10.1.0.3'] });
  } finally {
    events.close();
  }
});

const badFile = [
  'name,ip,mac,room',
  'ok-1,10.2.0.1,00:02:00:00:00:01,Lab 1',
  'bad-mac,10.2.0.2,00:02:00:00:00:zz,Lab 1',
  'ok-2,10.2.0.3,00:02:00:00:00:03,Lab 1',
  'same-ip,10.2.0.1,00:02:00:00:00:04,Lab 1',
].join('\n');

test('a file with a bad MAC and an IP twice stores nothing and names both rows and fields; the others are listed ok', async () => {
  const events = await EventStreamClient.open(s.port, 'types=inventory.*');
  try {
    const r = await importCsv(badFile);
    assert.equal(r.status, 400, r.text);
    assert.deepEqual([r.body.error, r.body.field, r.body.added, r.body.refused, r.body.dry_run], ['invalid_field', 'csv', 0, 2, false]);
    assert.match(r.body.message, /^2 of 4 rows refused; nothing was stored$/);
    assert.deepEqual(
      r.body.rows.map((row: any) => [row.line, row.name, row.ok, row.field ?? null]),
      [
        [2, 'ok-1', true, null],
        [3, 'bad-mac', false, 'mac'],
        [4, 'ok-2', true, null],
        [5, 'same-ip', false, 'ip'],
      ],
    );
    assert.equal(r.body.rows[3].error, 'duplicate');
    assert.match(r.body.rows[3].message, /line 2 has ip 10\.2\.0\.1 too/);
    for (const ip of ['10.2.0.1', '10.2.0.3']) assert.equal(await stored(ip), undefined, `${ip} not stored`);
    // A client added after the refusal is announced alone: the refused file announced nothing.
    await addClient(s, lab, '10.2.1.1', '00:02:00:00:01:01');
    await events.waitFor((e) => e.type === 'inventory.created' && e.data.kind === 'client', 'the client added');
    assert.deepEqual(
      events.events.filter((e) => e.data.kind === 'client').map((e) => e.data.client),
      ['10.2.1.1'],
    );
  } finally {
    events.close();
  }
});

test('a dry run stores nothing and answers what the import would: the same rows, refused or not', async () => {
  const refused = await importCsv(badFile, { dry_run: true });
  assert.equal(refused.status, 400, refused.text);
  const real = await importCsv(badFile);
  assert.deepEqual({ ...refused.body, dry_run: false }, real.body);
  assert.equal(refused.body.dry_run, true);

  const good = 'ip,mac,room\n10.3.0.1,00:03:00:00:00:01,Lab 1\n10.3.0.2,00:03:00:00:00:02,Lab 1';
  const preview = await importCsv(good, { dry_run: true });
  assert.equal(preview.status, 200, preview.text);
  assert.equal(await stored('10.3.0.1'), undefined, 'a dry run stores nothing');
  const done = await importCsv(good, { dry_run: false });
  assert.equal(done.status, 200, done.text);
  assert.deepEqual({ ...preview.body, dry_run: false }, done.body);
  assert.equal(done.body.added, 2);
  assert.ok(await stored('10.3.0.2'), 'stored by the real run');
});

test('a client written between the checks and the store: the transaction stores no row, and the answer names the one in the way', async () => {
  // Row 4's check adds a client at row 3's address, once row 3 passed its own: as another request might.
  let raced = false;
  s.app.events.hook('client.check', async ({ ip }) => {
    if (ip !== '10.11.0.3' || raced) return;
    raced = true;
    await addClient(s, lab, '10.11.0.2', '00:11:00:00:ff:02', { name: 'meanwhile' });
  });
  const csv = [
    'ip,mac,room',
    '10.11.0.1,00:11:00:00:00:01,Lab 1',
    '10.11.0.2,00:11:00:00:00:02,Lab 1',
    '10.11.0.3,00:11:00:00:00:03,Lab 1',
  ];
  const r = await importCsv(csv.join('\n'));
  assert.equal(r.status, 400, r.text);
  assert.deepEqual(
    r.body.rows.map((row: any) => [row.line, row.ok, row.field ?? null]),
    [
      [2, true, null],
      [3, false, 'ip'],
      [4, true, null],
    ],
  );
  assert.match(r.body.rows[1].message, /^client 'meanwhile' \(id \d+\) already has ip 10\.11\.0\.2$/);
  assert.equal(await stored('10.11.0.1'), undefined, 'the row inserted before the refused one was rolled back');
  assert.equal(await stored('10.11.0.3'), undefined);
});

test('clashes with stored clients, and every rule of /client/add, refuse a row as /client/add refuses the same fields', async () => {
  await addClient(s, lab, '10.4.0.1', '00:04:00:00:00:01', { name: 'owner' });
  const cases: Record<string, unknown>[] = [
    { ip: '10.4.0.1', mac: '00:04:00:00:00:02', room: lab },
    { ip: '10.4.0.3', mac: '00-04-00-00-00-01', room: lab },
    { ip: '10.4.0.4', mac: '01:00:5e:00:00:01', room: lab },
    { ip: '255.255.255.255', mac: '00:04:00:00:00:05', room: lab },
    { ip: '10.4.0.6', mac: '00:04:00:00:00:06', room: 999 },
    { ip: '10.4.0.7', mac: '00:04:00:00:00:07', room: lab, repo_id: 999 },
    { ip: '10.4.0.8', mac: '00:04:00:00:00:08', room: lab, netiface: 'eth 0' },
    { ip: '10.4.0.9', mac: '00:04:00:00:00:09', room: lab, maintenance: 'yes' },
    { ip: '10.4.0.10', room: lab },
  ];
  const columns = ['ip', 'mac', 'room', 'repo_id', 'netiface', 'maintenance'];
  const csv = [columns.join(','), ...cases.map((c) => columns.map((name) => String(c[name] ?? '')).join(','))].join('\n');
  const r = await importCsv(csv);
  assert.equal(r.status, 400, r.text);
  assert.equal(r.body.refused, cases.length, r.text);
  for (const [i, fields] of cases.entries()) {
    const add = await s.post('/client/add', fields);
    assert.equal(add.status, 400, add.text);
    const row = r.body.rows[i];
    assert.deepEqual([row.error, row.field, row.message], [add.body.error, add.body.field, add.body.message], `line ${row.line}`);
  }
});

test('semicolons, quoted cells with doubled quotes, a BOM, CRLF and blank lines', async () => {
  const csv =
    '\uFEFFname;ip;mac;room\r\n"pc; ""one""";10.5.0.1;00:05:00:00:00:01;Lab 1\r\n\r\n;;;\r\npc-2;10.5.0.2;00:05:00:00:00:02;"Lab 1"\r\n';
  const r = await importCsv(csv);
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(
    r.body.rows.map((row: any) => [row.line, row.name, row.ok]),
    [
      [2, 'pc; "one"', true],
      [5, 'pc-2', true],
    ],
  );
  assert.equal((await stored('10.5.0.1')).name, 'pc; "one"');
});

test('the header: an unknown column, or no room column, refuses the file naming it; so does a quote left open', async () => {
  const unknown = await importCsv('name,ip,mac,room,colour\npc,10.6.0.1,00:06:00:00:00:01,Lab 1,red');
  assert.equal(unknown.status, 400);
  assert.deepEqual([unknown.body.error, unknown.body.field], ['invalid_field', 'csv']);
  assert.match(unknown.body.message, /^unknown column 'colour'; the columns are ip, mac, room, name, /);
  const noRoom = await importCsv('ip,mac\n10.6.0.1,00:06:00:00:00:01');
  assert.deepEqual([noRoom.status, noRoom.body.error, noRoom.body.message], [400, 'missing_field', "the file has no 'room' column"]);
  const open = await importCsv('ip,mac,room\n10.6.0.1,"00:06:00:00:00:01,Lab 1');
  assert.deepEqual([open.status, open.body.message], [400, 'line 2: a quoted cell is not closed']);
  const cells = await importCsv('ip,mac,room\n10.6.0.1,00:06:00:00:00:01,Lab 1,extra');
  assert.equal(cells.status, 400);
  assert.equal(cells.body.rows[0].message, 'the line has 4 cells where the header names 3');
  assert.equal(await stored('10.6.0.1'), undefined);
});

test('more rows than inventory.import_max_rows refuses the file', async () => {
  const rows = Array.from({ length: 11 }, (_, n) => `10.7.0.${n + 1},00:07:00:00:00:${String(n + 10)},Lab 1`);
  const r = await importCsv(['ip,mac,room', ...rows].join('\n'));
  assert.equal(r.status, 400);
  assert.deepEqual(
    [r.body.field, r.body.message],
    ['csv', 'the file has 11 rows; at most 10 are imported at once (inventory.import_max_rows)'],
  );
  assert.equal((await importCsv(['ip,mac,room', ...rows.slice(1)].join('\n'), { dry_run: true })).status, 200, 'ten rows are taken');
  assert.equal(await stored('10.7.0.1'), undefined);
});

test('a room by id or by its name when unique; an ambiguous or unknown name is refused', async () => {
  const csv = ['ip,mac,room', '10.8.0.1,00:08:00:00:00:01,Aula', '10.8.0.2,00:08:00:00:00:02,Nowhere'].join('\n');
  const r = await importCsv(csv);
  assert.equal(r.status, 400);
  assert.deepEqual(
    r.body.rows.map((row: any) => [row.error, row.field]),
    [
      ['conflict', 'room'],
      ['unknown_id', 'room'],
    ],
  );
  assert.match(r.body.rows[0].message, /^2 rooms are named 'Aula' \(ids \d+, \d+\); give the room's id$/);
  assert.equal(r.body.rows[1].message, "no room is named 'Nowhere'");
  const byName = await importCsv(`room,ip,mac\nLab 1,10.8.0.3,00:08:00:00:00:03\n${lab},10.8.0.4,00:08:00:00:00:04`);
  assert.equal(byName.status, 200, byName.text);
  assert.equal((await stored('10.8.0.3')).room, lab);
  assert.equal((await stored('10.8.0.4')).room, lab);
});

test('a refusal over rest.max_response_bytes lists the refused rows alone, as many as fit, and says so', async () => {
  // Rows of some 500 bytes each in the answer: nine refused ones are over the 4,096 bytes.
  const long = `${'n'.repeat(100)},r${'o'.repeat(300)}m`;
  const rows = Array.from({ length: 10 }, (_, n) => `10.10.0.${n + 1},00:10:00:00:00:${n + 10},${n === 0 ? `pc,${lab}` : long}`);
  const r = await importCsv(['ip,mac,name,room', ...rows].join('\n'));
  assert.equal(r.status, 400, r.text);
  assert.ok(r.text.length <= 4096, `${r.text.length} bytes`);
  const listed = r.body.rows.length;
  assert.ok(listed > 0 && listed < 9, `${listed} rows listed`);
  assert.deepEqual(
    r.body.rows.map((row: any) => [row.line, row.ok, row.field]),
    Array.from({ length: listed }, (_, i) => [i + 3, false, 'room']),
  );
  assert.deepEqual([r.body.added, r.body.refused], [0, 9]);
  assert.equal(r.body.message, `9 of 10 rows refused; nothing was stored; the first ${listed} refused rows are listed`);
});

test('a token without the admin permission is refused', async () => {
  const made = await s.post('/tokens', { name: 'csv-operator', role: 'operator' });
  assert.equal(made.status, 200, made.text);
  const r = await s.request(
    'POST',
    '/client/import',
    { csv: 'ip,mac,room\n10.9.0.1,00:09:00:00:00:01,Lab 1' },
    { Authorization: made.body.secret },
  );
  assert.equal(r.status, 403, r.text);
  assert.match(r.body.message, /needs the 'admin' permission/);
  assert.equal(await stored('10.9.0.1'), undefined);
});

test.run();
