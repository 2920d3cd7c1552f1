import assert from 'node:assert/strict';
import { test } from 'uvu';
import { AuditRecorder } from '../../../plugins/audit/recorder';
import { EventStreamClient } from '../../support/event-stream';
import { eventually } from '../../support/fake-agent';
import { addCenter, addClient, addRoom } from '../../support/fixtures';
import { TOKEN, type TestServer, makeTestDir, removeTestStore, send, startServer, withServer } from '../../support/server';

const as = (secret: string) => ({ Authorization: secret });
const dayMs = 86_400_000;

async function token(s: TestServer, name: string, role: string): Promise<string> {
  const made = await s.post('/tokens', { name, role });
  assert.equal(made.status, 200, made.text);
  return made.body.secret;
}

/** Every entry GET /audit answers for `query`, following its pages. */
async function allEntries(s: TestServer, query = ''): Promise<any[]> {
  const entries: any[] = [];
  let before = '';
  for (;;) {
    const r = await s.get(`/audit?${query}${before}`);
    assert.equal(r.status, 200, r.text);
    entries.push(...r.body.entries);
    if (r.body.next === null) return entries;
    before = `${query ? '&' : ''}before=${r.body.next}`;
  }
}

const summary = (e: any) => `${e.token} ${e.method} ${e.path} [${e.clients.join(',')}] ${e.status}`;

test('a scripted session: each change and each command once, newest first, with who, where and which clients; no read, no secret', () =>
  withServer(async (s) => {
    const started = Date.now();
    const center = await addCenter(s);
    const room = await addRoom(s, center);
    await addClient(s, room, '127.0.20.1', '00aa00000001');
    const helpdesk = await token(s, 'helpdesk', 'operator');

    // Reads, by both keys: none of them is an action.
    for (const key of [TOKEN, helpdesk]) {
      for (const [method, path, body] of [
        ['GET', '/scopes', undefined],
        ['GET', '/clients', undefined],
        ['POST', '/clients', { clients: ['127.0.20.1'] }],
        ['GET', '/client/info', { client: ['127.0.20.1'] }],
        ['GET', '/mode', undefined],
      ] as const) {
        const r = await send(s.port, method, path, body, as(key));
        assert.equal(r.status, 200, `${method} ${path}: ${r.text}`);
      }
    }
    assert.equal((await s.get('/tokens')).status, 200);

    assert.equal((await send(s.port, 'POST', '/mode', { clients: ['127.0.20.1'], mode: 'pxe' }, as(helpdesk))).status, 200);
    assert.equal((await send(s.port, 'POST', '/refresh', { clients: ['127.0.20.1'] }, as(helpdesk))).status, 200);
    const refused = await send(s.port, 'POST', '/client/delete', { clients: ['127.0.20.1'] }, as(helpdesk));
    assert.equal(refused.status, 403, 'an attempt the token may not make is recorded too');
    const bad = await s.post('/client/add', { name: 'x', ip: '127.0.20.2', mac: 'nonsense', room });
    assert.equal(bad.status, 400);

    const entries = await allEntries(s);
    assert.deepEqual(entries.map(summary), [
      'api_token POST /client/add [127.0.20.2] 400',
      'helpdesk POST /client/delete [] 403',
      'helpdesk POST /refresh [127.0.20.1] 200',
      'helpdesk POST /mode [127.0.20.1] 200',
      'api_token POST /tokens [] 200',
      'api_token POST /client/add [127.0.20.1] 200',
      'api_token POST /room/add [] 200',
      'api_token POST /center/add [] 200',
    ]);
    for (const e of entries) {
      assert.equal(e.address, '127.0.0.1');
      assert.ok(Date.parse(e.time) >= started - 1000 && Date.parse(e.time) <= Date.now(), e.time);
      assert.ok(typeof e.ms === 'number' && e.ms >= 0);
    }
    const rows = JSON.stringify(await s.app.database.query('select * from audit_log'));
    assert.ok(!rows.includes(TOKEN), 'the key is in no row');
    assert.ok(!rows.includes(helpdesk.slice(4)), 'nor is the secret of a token');
  }));

test('GET /audit filters by token, client, path and time, pages newest first, and is for admins', () =>
  withServer(async (s) => {
    const center = await addCenter(s);
    const room = await addRoom(s, center);
    const clientIds: number[] = [];
    for (let i = 1; i <= 5; i++) clientIds.push(await addClient(s, room, `127.0.21.${i}`, `00aa000000${10 + i}`));
    const helpdesk = await token(s, 'helpdesk', 'operator');
    await send(s.port, 'POST', '/refresh', { clients: ['127.0.21.1', '127.0.21.2'] }, as(helpdesk));
    await send(s.port, 'POST', '/refresh', { clients: ['127.0.21.12'] }, as(helpdesk));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const middle = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal((await s.post('/client/update', { id: clientIds[0], ip: '127.0.21.1', name: 'renamed' })).status, 200);

    assert.deepEqual((await allEntries(s, 'token=helpdesk')).map(summary), [
      'helpdesk POST /refresh [127.0.21.12] 200',
      'helpdesk POST /refresh [127.0.21.1,127.0.21.2] 200',
    ]);
    assert.deepEqual(
      (await allEntries(s, 'client=127.0.21.1')).map(summary),
      [
        'api_token POST /client/update [127.0.21.1] 200',
        'helpdesk POST /refresh [127.0.21.1,127.0.21.2] 200',
        'api_token POST /client/add [127.0.21.1] 200',
      ],
      'a client address matches whole, never a prefix of another (127.0.21.12)',
    );
    assert.equal((await allEntries(s, 'path=/client')).length, 6, 'the path and everything under it');
    assert.equal((await allEntries(s, 'path=/client/add')).length, 5);
    assert.equal((await allEntries(s, 'path=/cli')).length, 0, 'not a prefix of a path segment');
    assert.deepEqual((await allEntries(s, `from=${new Date(middle).toISOString()}`)).map(summary), [
      'api_token POST /client/update [127.0.21.1] 200',
    ]);
    assert.equal((await allEntries(s, `to=${middle}`)).length, 10, 'milliseconds too');

    const first = await s.get('/audit?limit=4');
    assert.equal(first.body.entries.length, 4);
    const second = await s.get(`/audit?limit=4&before=${first.body.next}`);
    const third = await s.get(`/audit?limit=4&before=${second.body.next}`);
    assert.equal(third.body.next, null);
    const ids = [...first.body.entries, ...second.body.entries, ...third.body.entries].map((e: any) => e.id);
    assert.equal(ids.length, 11);
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => b - a),
      'newest first, no entry twice',
    );
    assert.equal(new Set(ids).size, 11);

    for (const [query, field] of [
      ['client=127.0.21', 'client'],
      ['client=%25', 'client'],
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=ten', 'limit'],
      ['before=-1', 'before'],
      ['from=yesterday', 'from'],
      ['to=2026-13-45', 'to'],
      ['path=client', 'path'],
      ['path=/client%25', 'path'],
      ['path=/client_add', 'path'],
      ['token=', 'token'],
      ['secret=x', 'secret'],
    ]) {
      const r = await s.get(`/audit?${query}`);
      assert.deepEqual([r.status, r.body.field], [400, field], query);
    }
    const asHelpdesk = await send(s.port, 'GET', '/audit', undefined, as(helpdesk));
    assert.deepEqual([asHelpdesk.status, asHelpdesk.body.error], [403, 'forbidden']);
    assert.match(asHelpdesk.body.message, /'admin' permission/);
  }));

test('an action naming thousands of clients keeps every address (past the 64 KiB of a MariaDB text column)', () =>
  withServer(async (s) => {
    const clients = Array.from({ length: 6000 }, (_, i) => `127.1.${Math.floor(i / 250)}.${(i % 250) + 1}`);
    const r = await s.post('/refresh', { clients });
    assert.ok(r.status === 200 || r.status === 400, r.text);
    const [entry] = (await s.get('/audit?path=/refresh')).body.entries;
    assert.equal(entry.clients.length, 6000);
    assert.deepEqual(entry.clients, clients);
    assert.equal((await s.get(`/audit?client=${clients[5999]}`)).body.entries.length, 1);
  }));

test('an entry the database refuses is dropped and logged; the rest of its batch is written', () =>
  withServer(async (s) => {
    const logged: string[] = [];
    const log = { ...s.app.log, error: (_: unknown, msg: string) => logged.push(msg), info() {}, warn() {} } as never;
    let dropped = 0;
    const written: string[] = [];
    const recorder = new AuditRecorder(s.app.database, { batch: 100, maxQueued: 100 }, log, {
      written: (actions) => written.push(...actions.map((a) => a.path)),
      dropped: () => dropped++,
    });
    const action = (path: string) => ({
      time: new Date(),
      token: 't',
      address: '127.0.0.1',
      method: 'POST',
      path,
      clients: [],
      status: 200,
      ms: 1,
    });
    recorder.record(action('/first'));
    recorder.record({ ...action('/refused'), token: null as never });
    recorder.record(action('/last'));
    await recorder.flush();
    assert.deepEqual(written, ['/first', '/last']);
    assert.equal(dropped, 1);
    assert.deepEqual(logged, ['audit entry refused by the database: dropped']);
    assert.deepEqual(
      (await allEntries(s)).map((e) => e.path),
      ['/last', '/first'],
    );
    assert.equal(recorder.queued, 0, 'nothing left to hold the queue back');
  }));

test('the audit log survives a restart: entries queued at the stop are written before it', async () => {
  const dir = makeTestDir();
  try {
    // A flush interval far longer than the test: only the stop can have written them.
    const config = { audit: { flush_ms: 60_000 } };
    const first = await startServer({ dir, config });
    await addCenter(first, 'kept');
    await first.close();
    const second = await startServer({ dir, config });
    try {
      assert.deepEqual((await allEntries(second)).map(summary), ['api_token POST /center/add [] 200']);
    } finally {
      await second.close();
    }
  } finally {
    await removeTestStore(dir);
  }
});

test('audit.retention_days deletes older entries at start; 0 keeps them all', async () => {
  const dir = makeTestDir();
  try {
    const first = await startServer({ dir });
    const em = first.app.database.fork();
    const old = (days: number, path: string) => ({
      at: String(Date.now() - days * dayMs),
      token: 'api_token',
      address: '127.0.0.1',
      method: 'POST',
      path,
      clients: '',
      status: 200,
      ms: 1,
    });
    await em.insertMany('AuditEntry', [old(400, '/old'), old(20, '/recent')]);
    await first.close();

    const keeping = await startServer({ dir, config: { audit: { retention_days: 0 } } });
    assert.deepEqual(
      (await allEntries(keeping)).map((e) => e.path),
      ['/recent', '/old'],
    );
    await keeping.close();
    const pruning = await startServer({ dir, config: { audit: { retention_days: 30 } } });
    try {
      assert.deepEqual(
        (await allEntries(pruning)).map((e) => e.path),
        ['/recent'],
      );
      assert.ok(pruning.logs.some((l) => /audit entries older than 30 days deleted/.test(l.msg)));
    } finally {
      await pruning.close();
    }
  } finally {
    await removeTestStore(dir);
  }
});

test('with the event stream, each entry is an audit.recorded event too, with what it changed', () =>
  withServer(
    async (s) => {
      const stream = await EventStreamClient.open(s.port, 'types=audit.recorded');
      try {
        const center = await addCenter(s);
        const event = await stream.waitFor((e) => e.type === 'audit.recorded', 'the audit event', 5000);
        assert.deepEqual(
          { ...event.data, time: typeof event.data.time, ms: typeof event.data.ms },
          {
            token: 'api_token',
            address: '127.0.0.1',
            method: 'POST',
            path: '/center/add',
            clients: [],
            status: 200,
            time: 'string',
            ms: 'number',
            changes: [{ entity: 'center', id: center, name: 'Center', field: 'name', after: 'Center' }],
          },
        );
        assert.ok(center > 0);
      } finally {
        stream.close();
      }
    },
    { config: { audit: { flush_ms: 20 } } },
  ));

test('GET /metrics counts the entries written', () =>
  withServer(
    async (s) => {
      await addCenter(s);
      await eventually(async () => /^ogserve_audit_entries_total 1$/m.test((await s.get('/metrics')).text), 'the written entry counted');
    },
    { config: { audit: { flush_ms: 20 } } },
  ));

test.run();
