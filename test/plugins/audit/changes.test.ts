import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { addCenter, addClient, addRoom, macFor } from '../../support/fixtures';
import { withPluginFile } from '../../support/plugin-file';
import { TOKEN, type TestServer, makeTestDir, removeTestStore, startServer, withServer } from '../../support/server';

/** The newest entry of `path` (the path itself, not what is under it). */
async function latest(s: TestServer, path: string): Promise<any> {
  const r = await s.get(`/audit?path=${path}`);
  assert.equal(r.status, 200, r.text);
  const entry = r.body.entries.find((e: any) => e.path === path);
  assert.ok(entry, `an entry of ${path}`);
  return entry;
}

/** A change as one line: `client 7 (pc-1) room: Lab 1 -> Lab 2`. */
const line = (c: any) => {
  const shown = (v: unknown) =>
    v === undefined ? '-' : v !== null && typeof v === 'object' ? (v as { name: string }).name : JSON.stringify(v);
  return `${c.entity} ${c.id} (${c.name}) ${c.field}: ${shown(c.before)} -> ${shown(c.after)}`;
};

test('a client renamed and moved: its entry keeps the fields that changed, before and after, references by name; an add keeps the new values, a delete what went (with the PCs of a room or center)', () =>
  withServer(async (s) => {
    const center = await addCenter(s, 'School');
    const lab1 = await addRoom(s, center, 'Lab 1');
    const lab2 = await addRoom(s, center, 'Lab 2');
    const id = await addClient(s, lab1, '127.0.30.1', '00aa00000001');

    assert.deepEqual((await latest(s, '/client/add')).changes.map(line), [
      `client ${id} (pc-127.0.30.1) name: - -> "pc-127.0.30.1"`,
      `client ${id} (pc-127.0.30.1) ip: - -> "127.0.30.1"`,
      `client ${id} (pc-127.0.30.1) mac: - -> "00aa00000001"`,
      `client ${id} (pc-127.0.30.1) room: - -> Lab 1`,
      `client ${id} (pc-127.0.30.1) livedir: - -> "ogLive"`,
      `client ${id} (pc-127.0.30.1) boot: - -> "ogLive"`,
    ]);

    const r = await s.post('/client/update', { id, ip: '127.0.30.1', name: 'front-desk', room: lab2 });
    assert.equal(r.status, 200, r.text);
    const update = await latest(s, '/client/update');
    assert.deepEqual(update.changes, [
      { entity: 'client', id, name: 'front-desk', field: 'name', before: 'pc-127.0.30.1', after: 'front-desk' },
      { entity: 'client', id, name: 'front-desk', field: 'room', before: { id: lab1, name: 'Lab 1' }, after: { id: lab2, name: 'Lab 2' } },
    ]);
    assert.equal(update.changes_omitted, undefined);

    assert.equal((await s.post('/room/update', { id: lab1, name: 'Lab 1 (old)', remote: true })).status, 200);
    assert.deepEqual((await latest(s, '/room/update')).changes.map(line), [
      `room ${lab1} (Lab 1 (old)) name: "Lab 1" -> "Lab 1 (old)"`,
      `room ${lab1} (Lab 1 (old)) remote: false -> true`,
    ]);
    assert.equal((await s.post('/center/update', { id: center, name: 'High school' })).status, 200);
    assert.deepEqual((await latest(s, '/center/update')).changes.map(line), [
      `center ${center} (High school) name: "School" -> "High school"`,
    ]);

    assert.equal((await s.post('/client/delete', { clients: ['127.0.30.1', '127.0.30.99'] })).status, 200);
    const deleted = (await latest(s, '/client/delete')).changes;
    assert.ok(
      deleted.every((c: any) => c.entity === 'client' && c.id === id && c.after === undefined && 'before' in c),
      'only what was removed',
    );
    assert.deepEqual(
      deleted.map((c: any) => c.field),
      ['name', 'ip', 'mac', 'room', 'livedir', 'boot'],
    );
    // A room's delete takes its PCs with it: they are listed too.
    const left = await addClient(s, lab1, '127.0.30.2', '00aa00000002', { name: 'left' });
    assert.equal((await s.post('/room/delete', { id: lab1 })).status, 200);
    assert.deepEqual((await latest(s, '/room/delete')).changes.map(line), [
      `room ${lab1} (Lab 1 (old)) name: "Lab 1 (old)" -> -`,
      `room ${lab1} (Lab 1 (old)) center: High school -> -`,
      `room ${lab1} (Lab 1 (old)) netmask: "255.255.255.0" -> -`,
      `room ${lab1} (Lab 1 (old)) remote: true -> -`,
      `client ${left} (left) name: "left" -> -`,
      `client ${left} (left) ip: "127.0.30.2" -> -`,
      `client ${left} (left) mac: "00aa00000002" -> -`,
      `client ${left} (left) room: Lab 1 (old) -> -`,
      `client ${left} (left) livedir: "ogLive" -> -`,
      `client ${left} (left) boot: "ogLive" -> -`,
    ]);
    const folder = await s.post('/folder/add', { name: 'Row A', room: lab2 });
    assert.equal(folder.status, 200, folder.text);
    assert.deepEqual((await latest(s, '/folder/add')).changes.map(line), [
      `folder ${folder.body.id} (Row A) name: - -> "Row A"`,
      `folder ${folder.body.id} (Row A) room: - -> Lab 2`,
    ]);
    const last = await addClient(s, lab2, '127.0.30.3', '00aa00000003', { name: 'last' });
    assert.equal((await s.post('/center/delete', { id: center })).status, 200);
    assert.deepEqual(
      (await latest(s, '/center/delete')).changes.map((c: any) => `${c.entity} ${c.id} ${c.field}`),
      [`center ${center} name`, ...['name', 'ip', 'mac', 'room', 'livedir', 'boot'].map((f) => `client ${last} ${f}`)],
      "a center's delete lists its PCs too",
    );
  }));

test('bulk writes: a move, a repository, a boot mode and a live image for many PCs, each PC once; a CSV import keeps the first 100 values and counts the rest', () =>
  withServer(async (s) => {
    const center = await addCenter(s);
    const lab1 = await addRoom(s, center, 'Lab 1');
    const lab2 = await addRoom(s, center, 'Lab 2');
    const ips = ['127.0.31.1', '127.0.31.2', '127.0.31.3'];
    const ids: number[] = [];
    for (const [i, ip] of ips.entries()) ids.push(await addClient(s, lab1, ip, macFor(i + 1)));

    assert.equal((await s.post('/client/move', { clients: ips.slice(0, 2), room: lab2 })).status, 200);
    assert.deepEqual(
      (await latest(s, '/client/move')).changes.map(line),
      [0, 1].map((i) => `client ${ids[i]} (pc-${ips[i]}) room: Lab 1 -> Lab 2`),
    );

    const repo = await s.post('/repository/add', { name: 'Images 2', ip: '127.0.31.200' });
    assert.equal(repo.status, 200, repo.text);
    assert.deepEqual((await latest(s, '/repository/add')).changes.map(line), [
      `repository ${repo.body.id} (Images 2) name: - -> "Images 2"`,
      `repository ${repo.body.id} (Images 2) ip: - -> "127.0.31.200"`,
    ]);
    assert.equal((await s.post('/client/repo', { clients: ips, id: repo.body.id })).status, 200);
    assert.deepEqual(
      (await latest(s, '/client/repo')).changes.map(line),
      ips.map((ip, i) => `client ${ids[i]} (pc-${ip}) repo_id: null -> Images 2`),
    );

    // A PC already in the mode is not a change; an address no client has names nothing.
    assert.equal((await s.post('/mode', { clients: [ips[0]], mode: 'pxe' })).status, 200);
    assert.equal((await s.post('/mode', { clients: [...ips, ips[1], '127.0.31.99'], mode: 'pxe' })).status, 200);
    assert.deepEqual(
      (await latest(s, '/mode')).changes.map(line),
      [1, 2].map((i) => `client ${ids[i]} (pc-${ips[i]}) boot: "ogLive" -> "pxe"`),
    );

    const image = 'ogLive-focal-5.13.0-27-beta-amd64-r20210706.5e9f2ff';
    mkdirSync(path.join(s.dir, 'tftpboot', image), { recursive: true });
    assert.equal((await s.post('/live/set', { clients: ips.slice(1), name: image })).status, 200);
    assert.deepEqual(
      (await latest(s, '/live/set')).changes.map(line),
      [1, 2].map((i) => `client ${ids[i]} (pc-${ips[i]}) livedir: "ogLive" -> "${image}"`),
    );

    const rows = Array.from({ length: 30 }, (_, i) => `127.0.32.${i + 1},${macFor(100 + i)},${lab1},imported-${i + 1}`);
    const imported = await s.post('/client/import', { csv: ['ip,mac,room,name', ...rows].join('\n') });
    assert.equal(imported.status, 200, imported.text);
    const entry = await latest(s, '/client/import');
    assert.equal(entry.changes.length, 100, 'the first 100 kept');
    assert.equal(entry.changes_omitted, 30 * 6 - 100, 'the rest counted');
    assert.deepEqual(
      entry.changes.slice(0, 4).map((c: any) => [c.name, c.field, c.after]),
      [
        ['imported-1', 'name', 'imported-1'],
        ['imported-1', 'ip', '127.0.32.1'],
        ['imported-1', 'mac', macFor(100)],
        ['imported-1', 'room', { id: lab1, name: 'Lab 1' }],
      ],
    );
    assert.equal(entry.clients.length, 0, 'a file names no clients in its body');
  }));

test('a command: its entry names the job and each PC by id and name (an unknown address by itself), and links nothing else', () =>
  withServer(async (s) => {
    const center = await addCenter(s);
    const room = await addRoom(s, center, 'Lab 1');
    const a = await addClient(s, room, '127.0.33.1', macFor(1));
    const b = await addClient(s, room, '127.0.33.2', macFor(2), { name: 'teacher' });
    const r = await s.post('/refresh', { clients: ['127.0.33.1', '127.0.33.2', '127.0.33.9'] });
    assert.equal(r.status, 200, r.text);
    assert.ok(Number.isInteger(r.body.job), r.text);
    const entry = await latest(s, '/refresh');
    assert.deepEqual(entry.command, {
      job: r.body.job,
      kind: 'refresh',
      count: 3,
      clients: [{ ip: '127.0.33.1', id: a, name: 'pc-127.0.33.1' }, { ip: '127.0.33.2', id: b, name: 'teacher' }, { ip: '127.0.33.9' }],
    });
    assert.equal(entry.changes, undefined, 'a command changes no record');
    assert.equal((await s.get(`/jobs/${r.body.job}`)).body.kind, 'refresh', 'the job it names');
    assert.equal((await latest(s, '/client/add')).command, undefined, 'a write sends no command');
  }));

test('a refused write records its attempt and no change', () =>
  withServer(async (s) => {
    const center = await addCenter(s, 'School');
    await addCenter(s, 'Other');
    const room = await addRoom(s, center, 'Lab 1');
    const id = await addClient(s, room, '127.0.34.1', macFor(1));
    const made = await s.post('/tokens', { name: 'helpdesk', role: 'operator' });
    const attempts: [number, string, Record<string, unknown>, Record<string, string>?][] = [
      [400, '/center/update', { id: center, name: 'Other' }],
      [400, '/client/update', { id, ip: '127.0.34.1', name: 'x', room: 999 }],
      [400, '/client/move', { clients: ['127.0.34.1', '127.0.34.9'], room }],
      [400, '/client/import', { csv: `ip,mac,room\n127.0.34.2,${macFor(2)},${room}\n127.0.34.3,nonsense,${room}` }],
      [400, '/mode', { clients: ['127.0.34.1'], mode: 'no-such-mode' }],
      [403, '/client/delete', { clients: ['127.0.34.1'] }, { Authorization: made.body.secret }],
    ];
    for (const [status, path, body, headers] of attempts) {
      const r = await s.request('POST', path, body, headers ?? { Authorization: TOKEN });
      assert.equal(r.status, status, `${path}: ${r.text}`);
      const entry = await latest(s, path);
      assert.deepEqual([entry.status, entry.changes, entry.command], [status, undefined, undefined], path);
    }
    assert.equal((await s.get('/client/info', { client: ['127.0.34.1'] })).body.room, room, 'nothing was written');
  }));

test('what a write changed that cannot be read is logged and left out: the write itself is answered as ever', () =>
  withServer(async (s) => {
    const room = await addRoom(s, await addCenter(s), 'Lab 1');
    const id = await addClient(s, room, '127.0.35.1', macFor(1));
    // A table the comparison reads and the write does not: gone, its reads fail.
    await s.app.database.query('alter table servers rename to servers_away');
    const r = await s.post('/client/update', { id, ip: '127.0.35.1', name: 'renamed' });
    assert.equal(r.status, 200, r.text);
    assert.equal((await s.get('/client/info', { client: ['127.0.35.1'] })).body.name, 'renamed');
    const entry = await latest(s, '/client/update');
    assert.deepEqual([entry.status, entry.changes], [200, undefined]);
    assert.ok(s.logs.some((l) => l.msg === 'audit details not read: the entry keeps no changes'));
  }));

/** A third-party plugin whose write changes a secret: it tells the audit log as the bundled ones do. */
const accounts = (core: string) => `const { definePlugin, Type } = require(${core});
module.exports = definePlugin({
  name: 'accounts',
  register(ctx) {
    const body = Type.Object({ password: Type.String() });
    ctx.router.post('/account/password', { permission: 'admin', body }, async ({ req, body }) => {
      await ctx.events.tell('audit.details', { req, changes: [
        { entity: 'account', id: 1, name: 'ana', field: 'password', before: 'old-' + body.password, after: body.password },
        { entity: 'account', id: 1, name: 'ana', field: 'api_key', after: 'key-' + body.password },
        { entity: 'account', id: 1, name: 'ana', field: 'email', before: 'a@x', after: 'ana@x' },
      ] });
      return {};
    });
  },
});`;

test("a plugin's own write is kept as the bundled ones are; a secret's value never is, only that it changed", () =>
  withPluginFile('accounts', accounts, (file) =>
    withServer(
      async (s) => {
        const r = await s.post('/account/password', { password: 'hunter2-secret' });
        assert.equal(r.status, 200, r.text);
        assert.deepEqual((await latest(s, '/account/password')).changes.map(line), [
          'account 1 (ana) password: "(secret)" -> "(secret)"',
          'account 1 (ana) api_key: "(secret)" -> "(secret)"',
          'account 1 (ana) email: "a@x" -> "ana@x"',
        ]);
        const rows = JSON.stringify(await s.app.database.query('select * from audit_log'));
        assert.ok(!rows.includes('hunter2'), 'the secret is in no row');
        const token = await s.post('/tokens', { name: 'ops', role: 'operator' });
        const entry = await latest(s, '/tokens');
        assert.equal(JSON.stringify(entry).includes(token.body.secret), false, 'a new token is not');
      },
      { config: { plugins: ['inventory', 'tokens', 'audit', file] } },
    ),
  ));

test('entries written before schema version 2 read as they were; the upgrade adds the column and new entries keep their changes', async () => {
  const dir = makeTestDir();
  try {
    const first = await startServer({ dir });
    const center = await addCenter(first, 'Kept');
    assert.equal((await first.get('/audit')).body.entries.length, 1, 'written');
    // The database as version 1 left it: no details column.
    await first.app.database.query('alter table audit_log drop column details');
    await first.app.database.query("update ogserve_schema set version = 1 where component = 'audit'");
    await first.close();

    const second = await startServer({ dir });
    try {
      const [version] = await second.app.database.query<{ version: number }>(
        "select version from ogserve_schema where component = 'audit'",
      );
      assert.equal(Number(version!.version), 2);
      assert.equal((await second.post('/center/update', { id: center, name: 'Renamed' })).status, 200);
      const entries = (await second.get('/audit')).body.entries;
      assert.deepEqual(
        entries.map((e: any) => [e.path, e.changes?.map(line)]),
        [
          ['/center/update', [`center ${center} (Renamed) name: "Kept" -> "Renamed"`]],
          ['/center/add', undefined],
        ],
      );
      assert.ok(!('changes' in entries[1]) && !('command' in entries[1]), 'an old entry has neither');
    } finally {
      await second.close();
    }
  } finally {
    await removeTestStore(dir);
  }
});

test.run();
