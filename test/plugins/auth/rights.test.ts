import assert from 'node:assert/strict';
import { test } from 'uvu';
import { addCenter, addClient, addRoom, macFor } from '../../support/fixtures';
import { eventually } from '../../support/fake-agent';
import { send, withServer } from '../../support/server';
import { addUser, signIn } from './people';

test('a person limited to a room sees and acts on that room only, and the audit log names them and their provider', () =>
  withServer(async (s) => {
    const center = await addCenter(s, 'Science');
    const labA = await addRoom(s, center, 'Lab A');
    const labB = await addRoom(s, center, 'Lab B');
    await addClient(s, labA, '127.0.30.1', macFor(1));
    await addClient(s, labB, '127.0.30.2', macFor(2));
    await addUser(s, 'tech', 'operator', { rooms: [labA] });
    const tech = await signIn(s.port, 'tech');
    assert.equal(tech.answer.body.scope, `rooms ${labA}`);

    const scopes = (await tech.request('GET', '/scopes')).text;
    assert.ok(scopes.includes('127.0.30.1') && !scopes.includes('127.0.30.2'), `the other room is left out: ${scopes}`);
    const outside = await tech.request('POST', '/mode', { clients: ['127.0.30.2'], mode: 'pxe' });
    assert.equal(outside.status, 403, outside.text);
    assert.match(outside.body.message, /client 127\.0\.30\.2 is outside what the key 'tech@local' may reach/);
    assert.equal((await tech.request('POST', '/mode', { clients: ['127.0.30.1'], mode: 'pxe' })).status, 200);
    assert.equal((await tech.request('POST', '/center/add', { name: 'x' })).status, 403, 'not open to a limited person');

    const audit = await s.get('/audit?token=tech@local');
    assert.equal(audit.status, 200, audit.text);
    assert.deepEqual(
      audit.body.entries.map((e: { token: string; path: string; status: number }) => `${e.token} ${e.path} ${e.status}`),
      ['tech@local /center/add 403', 'tech@local /mode 200', 'tech@local /mode 403'],
    );
  }));

test('a person with the shell permission holds it; a person without is refused it whatever their role', () =>
  withServer(async (s) => {
    await addUser(s, 'boss', 'admin');
    await addUser(s, 'runner', 'operator', { shell: true });
    const boss = await signIn(s.port, 'boss');
    const runner = await signIn(s.port, 'runner');
    assert.deepEqual((await runner.request('GET', '/auth/me')).body.permissions, ['operate', 'read', 'shell']);
    const refused = await boss.request('POST', '/shell/run', {});
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.body.message, /needs the 'shell' permission/);
    assert.equal((await runner.request('POST', '/shell/run', {})).status, 400, 'past the permission, to the body check');
    const noCookie = await send(s.port, 'GET', '/auth/me');
    assert.equal(noCookie.status, 401);
  }));

test("an admin changes a user's role, shell right and rooms (POST /users/update): their session ends, they sign in with the new rights, and the audit log says what changed", () =>
  withServer(async (s) => {
    const center = await addCenter(s, 'Science');
    const labA = await addRoom(s, center, 'Lab A');
    await addUser(s, 'tech', 'reader');
    const before = await signIn(s.port, 'tech');
    const r = await s.post('/users/update', { username: 'tech', role: 'operator', shell: true, rooms: [String(labA)] });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual([r.body.role, r.body.shell, r.body.centers, r.body.rooms], ['operator', true, [], [labA]]);
    assert.equal((await before.request('GET', '/auth/me')).status, 401, 'the old session ended');
    const after = await signIn(s.port, 'tech');
    assert.deepEqual((await after.request('GET', '/auth/me')).body.permissions, ['operate', 'read', 'shell']);
    assert.equal((await after.request('GET', '/auth/me')).body.scope, `rooms ${labA}`);
    const kept = await s.post('/users/update', { username: 'tech', shell: false });
    assert.deepEqual([kept.body.role, kept.body.shell, kept.body.rooms], ['operator', false, [labA]], 'what is left out stays');

    const refused = [
      [{ username: 'nobody', role: 'reader' }, 'username'],
      [{ username: 'tech', role: 'boss' }, 'role'],
      [{ username: 'tech', rooms: [999] }, 'rooms'],
    ] as const;
    for (const [body, field] of refused) {
      const bad = await s.post('/users/update', body);
      assert.deepEqual([bad.status, bad.body.field], [400, field], JSON.stringify(body));
    }
    await addUser(s, 'ana', 'admin', { shell: true });
    const audited = await eventually(async () => {
      const entries = (await s.get('/audit?path=/users')).body.entries as {
        path: string;
        changes?: { field: string; before?: unknown; after?: unknown }[];
      }[];
      return entries.find((e) => e.path === '/users/update' && e.changes?.some((c) => c.field === 'role')) &&
        entries.some((e) => e.path === '/users' && e.changes?.some((c) => c.field === 'shell' && c.after === true))
        ? entries
        : undefined;
    }, 'the writes audited');
    const update = audited!.find((e) => e.path === '/users/update' && e.changes?.some((c) => c.field === 'role'))!;
    assert.deepEqual(
      update.changes!.map((c) => [c.field, c.before, c.after]),
      [
        ['role', 'reader', 'operator'],
        ['shell', false, true],
        ['rooms', '', String(labA)],
      ],
      'what the update changed, field by field',
    );
  }));

test('a person makes tokens for themself with at most their own rights; they go when the person is disabled', () =>
  withServer(async (s) => {
    const center = await addCenter(s, 'Science');
    const lab = await addRoom(s, center, 'Lab');
    await addClient(s, lab, '127.0.31.1', macFor(1));
    await addUser(s, 'tech', 'operator', { rooms: [lab] });
    const tech = await signIn(s.port, 'tech');
    const refusals: [Record<string, unknown>, string][] = [
      [{ name: 'laptop', role: 'admin' }, 'role'],
      [{ name: 'laptop', shell: true }, 'shell'],
      [{ name: 'laptop', rooms: [lab] }, 'rooms'],
      [{ name: 'laptop', expires: '400d' }, 'expires'],
      [{ name: 'laptop', expires: 'soon' }, 'expires'],
      [{ name: '../x' }, 'name'],
    ];
    for (const [body, field] of refusals) {
      const r = await tech.request('POST', '/auth/tokens', body);
      assert.deepEqual([r.status, r.body.field], [400, field], JSON.stringify(body));
    }
    const made = await tech.request('POST', '/auth/tokens', { name: 'laptop', role: 'reader' });
    assert.equal(made.status, 200, made.text);
    assert.deepEqual(
      [made.body.name, made.body.role, made.body.rooms, made.body.owner],
      ['tech.laptop', 'reader', [lab], 'tech@local'],
      'named after its maker, limited to their room',
    );
    assert.ok(Date.parse(made.body.expires) - Date.now() > 29 * 86_400_000, '30 days by default');
    const asToken = { Authorization: made.body.secret };
    assert.equal((await send(s.port, 'POST', '/mode', { clients: ['127.0.31.1'], mode: 'pxe' }, asToken)).status, 403, 'a reader');
    assert.equal((await send(s.port, 'GET', '/client/info', { client: ['127.0.31.1'] }, asToken)).status, 200);
    const viaToken = await send(s.port, 'POST', '/auth/tokens', { name: 'x' }, asToken);
    assert.deepEqual([viaToken.status, viaToken.body.error], [400, 'not_a_person'], 'a token makes no tokens');

    await addUser(s, 'other', 'admin');
    const other = await signIn(s.port, 'other');
    assert.deepEqual((await other.request('GET', '/auth/tokens')).body.tokens, [], 'only one’s own are listed');
    const theirs = await other.request('DELETE', '/auth/tokens', { name: 'tech.laptop' });
    assert.deepEqual([theirs.status, theirs.body.field], [400, 'name'], 'nor revoked');
    assert.deepEqual(
      (await tech.request('GET', '/auth/tokens')).body.tokens.map((t: { name: string }) => t.name),
      ['tech.laptop'],
    );

    assert.equal((await s.post('/users/disable', { username: 'tech' })).status, 200);
    assert.equal((await send(s.port, 'GET', '/client/info', { client: ['127.0.31.1'] }, asToken)).status, 401, 'revoked with its maker');
  }));

test.run();
