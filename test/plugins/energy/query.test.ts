// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { TOKEN, send } from '../../support/server';
import { at, energySite, midnight, roomA, roomB } from './helpers';

const [pc1, pc2] = roomA as [string, string];
const pc3 = roomB[0]!;

test('GET /energy answers CSV with format=csv or Accept: text/csv: one row per group, hours then kWh', async () => {
  const x = await energySite();
  try {
    await x.to('02:00');
    const range = `from=${midnight}&to=${at('02:00')}`;
    // Sent past the test server's JSON schema check: these answers are CSV.
    const get = (path: string, headers: Record<string, string> = {}) =>
      send(x.s.port, 'GET', path, undefined, { Authorization: TOKEN, ...headers });
    const csv = await get(`/energy?${range}&by=room&format=csv`);
    assert.equal(csv.status, 200, csv.text);
    assert.equal(csv.headers['content-type'], 'text/csv; charset=utf-8');
    assert.equal(
      csv.text,
      [
        'room,center,clients,off_hours,idle_hours,session_hours,busy_hours,unknown_hours,off_kwh,idle_kwh,session_kwh,busy_kwh,total_kwh',
        'A,Center,2,4,0,0,0,0,0.004,0,0,0,0.004',
        'B,Center,1,2,0,0,0,0,0.002,0,0,0,0.002',
        '',
      ].join('\r\n'),
    );
    const accepted = await get(`/energy?${range}&by=client`, { Accept: 'text/csv' });
    assert.equal(accepted.headers['content-type'], 'text/csv; charset=utf-8');
    assert.deepEqual(
      accepted.text.split('\r\n').map((line) => line.split(',').slice(0, 4).join(',')),
      ['client,ip,room,center', ...[pc1, pc2].map((ip) => `pc-${ip},${ip},A,Center`), `pc-${pc3},${pc3},B,Center`, ''],
    );
    const json = await x.s.request('GET', '/energy?format=json', undefined, { Accept: 'text/csv' });
    assert.equal(json.body.by, 'room', 'format=json wins over Accept; by room by default');
    assert.deepEqual(
      [json.body.from, json.body.to],
      [new Date(midnight - 7 * 86_400_000).toISOString(), new Date(at('02:00')).toISOString()],
      'by default from 00:00 UTC seven days before now',
    );
  } finally {
    await x.close();
  }
});

test('GET /energy and GET /energy/now refuse a bad parameter with a 400 naming it', async () => {
  const x = await energySite();
  try {
    for (const [query, field] of [
      ['?from=yesterday', 'from'],
      ['?to=2026-13-45x', 'to'],
      [`?from=${at('02:00')}&to=${at('01:00')}`, 'to'],
      [`?from=${at('01:00')}&to=${at('01:00')}`, 'to'],
      ['?by=building', 'by'],
      ['?room=0', 'room'],
      ['?center=x', 'center'],
      ['?format=xml', 'format'],
      ['?client=127.0.71.1', 'client'],
      [`?by=day&from=${midnight - 400 * 86_400_000}&to=${midnight}`, 'to'],
    ] as const) {
      const r = await x.s.get(`/energy${query}`);
      assert.equal(r.status, 400, `${query}: ${r.text}`);
      assert.equal(r.body.field, field, query);
      assert.equal(r.body.error, 'invalid_field', query);
    }
    for (const [query, field] of [
      ['?room=-1', 'room'],
      ['?from=0', 'from'],
    ] as const) {
      const r = await x.s.get(`/energy/now${query}`);
      assert.equal(r.status, 400, `${query}: ${r.text}`);
      assert.equal(r.body.field, field, query);
    }
  } finally {
    await x.close();
  }
});

test('a token limited to a room sees the figures and states of its PCs only', async () => {
  const x = await energySite();
  try {
    await x.connect(pc1, { mode: 'windows' });
    await x.shows(pc1, 'idle');
    await x.to('01:00');
    const made = await x.s.post('/tokens', { name: 'b', role: 'reader', rooms: [x.roomB] });
    assert.equal(made.status, 200, made.text);
    const get = (path: string) => send(x.s.port, 'GET', path, undefined, { Authorization: made.body.secret });
    const report = (await get(`/energy?from=${midnight}&to=${at('01:00')}&by=client`)).body;
    assert.deepEqual(
      report.groups.map((g: any) => g.ip),
      [pc3],
    );
    assert.deepEqual(report.total.hours, { off: 1, idle: 0, session: 0, busy: 0, unknown: 0 }, 'the idle PC of room A is not counted');
    const now = (await get('/energy/now')).body;
    assert.deepEqual(
      now.rooms.map((room: any) => [room.name, room.counts, room.pcs.map((pc: any) => pc.ip)]),
      [['B', { off: 1, idle: 0, session: 0, busy: 0 }, [pc3]]],
    );
    const all = (await x.s.get('/energy/now')).body;
    assert.deepEqual(
      all.rooms.map((room: any) => [room.name, room.counts]),
      [
        ['A', { off: 1, idle: 1, session: 0, busy: 0 }],
        ['B', { off: 1, idle: 0, session: 0, busy: 0 }],
      ],
      'the unlimited key sees both rooms',
    );
  } finally {
    await x.close();
  }
});

test.run();
