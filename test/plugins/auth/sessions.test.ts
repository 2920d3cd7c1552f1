import assert from 'node:assert/strict';
import { test } from 'uvu';
import { ManualClock } from '../../../testing';
import { AuthClock } from '../../../plugins/auth';
import { send, startServer, withServer } from '../../support/server';
import { addUser, login, passwordOf, signIn } from './people';
// After the server's imports, which load the reflection tsyringe needs.
import { container as rootContainer } from 'tsyringe';

test('a local user signs in: an HttpOnly SameSite=Strict cookie, the CSRF token, and requests as themself', () =>
  withServer(async (s) => {
    await addUser(s, 'ana', 'operator');
    const ana = await signIn(s.port, 'ana');
    const cookie = String(ana.answer.headers['set-cookie']);
    assert.match(
      cookie,
      /^ogserve_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Strict$/,
      'no Secure over plain HTTP',
    );
    assert.deepEqual(
      { ...ana.answer.body, csrf: typeof ana.answer.body.csrf, expires: typeof ana.answer.body.expires },
      {
        name: 'ana@local',
        username: 'ana',
        source: 'local',
        role: 'operator',
        scope: null,
        csrf: 'string',
        expires: 'string',
        idle_s: 1800,
      },
    );
    const me = await ana.request('GET', '/auth/me');
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.csrf, ana.csrf, 'a reloaded page finds its CSRF token again');
    assert.deepEqual(me.body.permissions, ['operate', 'read']);
    assert.equal((await ana.request('GET', '/clients')).status, 200);
    const refused = await ana.request('POST', '/center/add', { name: 'x' });
    assert.equal(refused.status, 403, 'an operator may not change the inventory');
    assert.match(refused.body.message, /'ana@local' \(operator\)/);

    // The key and tokens in Authorization keep working as they did, without any CSRF token.
    const asKey = await s.get('/auth/me');
    assert.deepEqual([asKey.body.name, asKey.body.source, asKey.body.csrf], ['api_token', 'key', undefined]);
  }));

test('a request that changes something needs X-CSRF-Token when the cookie authenticates it', () =>
  withServer(async (s) => {
    await addUser(s, 'root', 'admin');
    const root = await signIn(s.port, 'root');
    const without = await root.request('POST', '/center/add', { name: 'north' }, { csrf: false });
    assert.equal(without.status, 403, without.text);
    assert.match(without.body.message, /X-CSRF-Token/);
    const wrong = await send(s.port, 'POST', '/center/add', { name: 'north' }, { Cookie: root.cookie, 'X-CSRF-Token': 'guess' });
    assert.equal(wrong.status, 403);
    assert.equal((await s.get('/scopes')).body.scope.length, 0, 'nothing was made');
    const made = await root.request('POST', '/center/add', { name: 'north' });
    assert.equal(made.status, 200, made.text);
    assert.equal((await root.request('GET', '/scopes', undefined, { csrf: false })).status, 200, 'a read needs no token');
  }));

test('sign-out ends the session and clears the cookie; an unknown cookie is a 401', () =>
  withServer(async (s) => {
    await addUser(s, 'ana', 'reader');
    const ana = await signIn(s.port, 'ana');
    const out = await ana.request('POST', '/auth/logout');
    assert.equal(out.status, 200, out.text);
    assert.match(String(out.headers['set-cookie']), /^ogserve_session=; Path=\/; Max-Age=0;/);
    assert.equal((await ana.request('GET', '/clients')).status, 401);
    const forged = await send(s.port, 'GET', '/clients', undefined, { Cookie: 'ogserve_session=forged' });
    assert.deepEqual([forged.status, forged.body.message], [401, 'the session has ended: sign in again']);
    // Not Basic, which would open a browser's own login box over the console.
    assert.equal(forged.headers['www-authenticate'], 'Cookie realm="ogserve"');
    const bare = await send(s.port, 'GET', '/clients');
    assert.equal(bare.headers['www-authenticate'], 'Basic realm="ogserve"', 'without a cookie, the reference’s challenge');
    const script = await send(s.port, 'GET', '/clients', undefined, { 'Sec-Fetch-Mode': 'cors', 'Sec-Fetch-Site': 'same-origin' });
    assert.equal(script.headers['www-authenticate'], 'Bearer realm="ogserve"', 'a page’s script whose cookie is gone: no login box');
    const rows = await s.app.database.query('select * from auth_sessions');
    assert.equal(rows.length, 0, 'the session row is gone');
  }));

test('wrong password and unknown user get the same 401; the password is never kept, logged or shown', () =>
  withServer(async (s) => {
    await addUser(s, 'ana', 'reader');
    const wrong = await login(s.port, 'ana', 'not-the-password');
    const unknown = await login(s.port, 'nobody', 'not-the-password');
    assert.deepEqual([wrong.status, wrong.body], [401, { error: 'unauthorized', message: 'wrong username or password' }]);
    assert.deepEqual([unknown.status, unknown.body], [wrong.status, wrong.body]);
    assert.equal(wrong.headers['set-cookie'], undefined);
    assert.equal(wrong.headers['www-authenticate'], 'Cookie realm="ogserve"');
    const [row] = await s.app.database.query<{ password_hash: string }>('select password_hash from auth_users');
    assert.match(row!.password_hash, /^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{88}$/);
    const listed = await s.get('/users');
    assert.deepEqual(Object.keys(listed.body.users[0]).sort(), [
      'centers',
      'created',
      'disabled',
      'password_changed',
      'role',
      'rooms',
      'shell',
      'username',
    ]);
    const everything = JSON.stringify([s.logs, listed.body, await s.app.database.query('select * from auth_users')]);
    assert.ok(!everything.includes(passwordOf('ana')) && !everything.includes('not-the-password'), 'no password anywhere');
  }));

test('bad user requests are refused naming the field; nothing half-made', () =>
  withServer(async (s) => {
    const cases: [Record<string, unknown>, string][] = [
      [{ username: 'x', password: 'long-enough-pw', role: 'root' }, 'role'],
      [{ username: 'has space', password: 'long-enough-pw', role: 'reader' }, 'username'],
      [{ username: 'x', password: 'short', role: 'reader' }, 'password'],
      [{ password: 'long-enough-pw', role: 'reader' }, 'username'],
      [{ username: 'x', role: 'reader' }, 'password'],
      [{ username: 'x', password: 42, role: 'reader' }, 'password'],
      [{ username: 'x', password: 'long-enough-pw', role: 'reader', centers: [9] }, 'centers'],
      [{ username: 'x', password: 'long-enough-pw', role: 'reader', shell: 'yes' }, 'shell'],
    ];
    for (const [body, field] of cases) {
      const r = await s.post('/users', body);
      assert.deepEqual([r.status, r.body.field], [400, field], JSON.stringify(body));
    }
    assert.equal((await s.post('/users', { username: 'x', password: 'long-enough-pw', role: 'reader' })).status, 200);
    const twice = await s.post('/users', { username: 'X', password: 'long-enough-pw', role: 'admin' });
    assert.deepEqual([twice.status, twice.body.error, twice.body.field], [400, 'duplicate', 'username'], 'names compare without case');
    assert.equal((await s.get('/users')).body.users.length, 1);
    for (const [path, body] of [
      ['/users/disable', { username: 'nobody' }],
      ['/users/password', { username: 'nobody', password: 'long-enough-pw' }],
    ] as const) {
      const r = await s.post(path, body);
      assert.deepEqual([r.status, r.body.field], [400, 'username'], path);
    }
    const login400 = await send(s.port, 'POST', '/auth/login', { username: 'x' });
    assert.deepEqual([login400.status, login400.body.field], [400, 'password']);
    const empty = await send(s.port, 'POST', '/auth/login', { username: 'x', password: '' });
    assert.deepEqual([empty.status, empty.body.field], [400, 'password'], 'an empty password is refused before any check');
  }));

test('a disabled user is signed out at once and told why at the next sign-in; a new password ends sessions too', () =>
  withServer(async (s) => {
    await addUser(s, 'ana', 'reader');
    const ana = await signIn(s.port, 'ana');
    assert.equal((await s.post('/users/disable', { username: 'ana' })).status, 200);
    assert.equal((await ana.request('GET', '/clients')).status, 401, 'the open session ended');
    const refused = await login(s.port, 'ana', passwordOf('ana'));
    assert.deepEqual([refused.status, refused.body.message], [403, "the account 'ana' is disabled"]);
    const wrongToo = await login(s.port, 'ana', 'not-the-password');
    assert.equal(wrongToo.status, 401, 'a wrong password does not learn that the account exists');
    assert.equal((await s.post('/users/enable', { username: 'ana' })).status, 200);
    const again = await signIn(s.port, 'ana');
    assert.equal((await s.post('/users/password', { username: 'ana', password: 'a-new-long-password' })).status, 200);
    assert.equal((await again.request('GET', '/clients')).status, 401);
    assert.equal((await login(s.port, 'ana', passwordOf('ana'))).status, 401, 'the old password is gone');
    assert.equal((await login(s.port, 'ana', 'a-new-long-password')).status, 200);
  }));

test('a session ends after its idle time and after its absolute lifetime', async () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 27, 9));
  const services = rootContainer.createChildContainer();
  services.register(AuthClock, { useValue: clock });
  const s = await startServer({ container: services, config: { auth: { session_idle_min: 10, session_absolute_h: 1 } } });
  try {
    await addUser(s, 'ana', 'reader');
    const idle = await signIn(s.port, 'ana');
    const busy = await signIn(s.port, 'ana');
    await clock.advanceTo(clock.now() + 9 * 60_000);
    assert.equal((await busy.request('GET', '/clients')).status, 200);
    await clock.advanceTo(clock.now() + 2 * 60_000);
    assert.equal((await idle.request('GET', '/clients')).status, 401, '11 minutes idle');
    for (let minutes = 18; minutes <= 53; minutes += 7) {
      await clock.advanceTo(clock.now() + 7 * 60_000);
      assert.equal((await busy.request('GET', '/clients')).status, 200, `${minutes} minutes, busy`);
    }
    await clock.advanceTo(Date.UTC(2026, 10, 27, 10));
    assert.equal((await busy.request('GET', '/clients')).status, 401, 'an hour after its sign-in, however busy');
  } finally {
    await s.close();
  }
});

test('failed sign-ins slow the next ones for that name and address, logged once', async () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 27, 9));
  const services = rootContainer.createChildContainer();
  services.register(AuthClock, { useValue: clock });
  const s = await startServer({ container: services, config: { auth: { free_failures: 2, max_delay_s: 8 } } });
  try {
    await addUser(s, 'ana', 'reader');
    for (let i = 0; i < 3; i++) assert.equal((await login(s.port, 'ana', 'guess')).status, 401);
    const slowed = await login(s.port, 'ana', passwordOf('ana'));
    assert.equal(slowed.status, 429, 'even the right password waits');
    assert.equal(slowed.headers['retry-after'], '1');
    assert.equal((await login(s.port, 'someone-else', 'guess')).status, 429, 'the address is slowed too');
    await clock.advanceTo(clock.now() + 1000);
    assert.equal((await login(s.port, 'ana', 'guess')).status, 401);
    const longer = await login(s.port, 'ana', passwordOf('ana'));
    assert.deepEqual([longer.status, longer.headers['retry-after']], [429, '2'], 'each failure doubles the wait');
    await clock.advanceTo(clock.now() + 2000);
    assert.equal((await login(s.port, 'ana', passwordOf('ana'))).status, 200);
    const warned = s.logs.filter((line) => /failed sign-ins/.test(line.msg));
    assert.deepEqual(
      warned.map((line) => line.msg),
      ['failed sign-ins for user ana: slowed', 'failed sign-ins for address 127.0.0.1: slowed'],
    );
  } finally {
    await s.close();
  }
});

test('many wrong sign-ins at once: only the free ones are checked, the rest are refused without a check', async () => {
  const s = await startServer({ config: { auth: { free_failures: 2 } } });
  try {
    await addUser(s, 'ana', 'reader');
    const answers = await Promise.all(Array.from({ length: 20 }, () => login(s.port, 'ana', 'guess')));
    const statuses = answers.map((answer) => answer.status).sort();
    // An attempt counts from its start: without that, all twenty pass the check before the first fails.
    assert.deepEqual(statuses, [...Array(3).fill(401), ...Array(17).fill(429)]);
  } finally {
    await s.close();
  }
});

test.run();
