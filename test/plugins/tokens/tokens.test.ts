import assert from 'node:assert/strict';
import { test } from 'uvu';
import { TokenStore } from '../../../plugins/tokens';
import { eventually } from '../../support/fake-agent';
import { ogserve } from '../../support/process';
import { TOKEN, makeTestDir, removeTestStore, send, startServer, withServer } from '../../support/server';
import { testEngine } from '../../support/test-db';

const as = (secret: string) => ({ Authorization: secret });

test('a token is made, shown once, listed without its secret, kept only as a hash, and revoked', () =>
  withServer(async (s) => {
    const made = await s.post('/tokens', { name: 'helpdesk', role: 'operator' });
    assert.equal(made.status, 200, made.text);
    const { secret, ...view } = made.body;
    assert.match(secret, /^ogs_[A-Za-z0-9_-]{32}$/);
    assert.deepEqual(
      { ...view, created: 'x' },
      {
        name: 'helpdesk',
        role: 'operator',
        shell: false,
        created: 'x',
        expires: null,
        last_used: null,
        centers: [],
        rooms: [],
        owner: null,
      },
    );

    assert.equal((await send(s.port, 'GET', '/clients', undefined, as(secret))).status, 200, 'as the key');
    assert.equal((await send(s.port, 'GET', '/clients', undefined, as(`Bearer ${secret}`))).status, 200, 'as a bearer token');
    const listed = (await s.get('/tokens')).body.tokens;
    assert.equal(listed.length, 1);
    assert.ok(listed[0].last_used, 'its last use is shown');
    assert.ok(!JSON.stringify(listed).includes(secret.slice(4)), 'the list has no secret');
    const rows = await s.app.database.query('select * from api_tokens');
    assert.ok(!JSON.stringify(rows).includes(secret.slice(4)), 'neither has the table');

    assert.equal((await s.request('DELETE', '/tokens', { name: 'helpdesk' })).status, 200);
    const after = await send(s.port, 'GET', '/clients', undefined, as(secret));
    assert.equal(after.status, 401, 'revoked');
    assert.equal(after.body.error, 'unauthorized');
    const again = await s.request('DELETE', '/tokens', { name: 'helpdesk' });
    assert.deepEqual([again.status, again.body.field], [400, 'name']);
  }));

test('a table that cannot be read again behind a known key keeps the tokens known, and says so in the log', () =>
  withServer(async (s) => {
    const { secret } = (await s.post('/tokens', { name: 'desk', role: 'reader' })).body;
    await s.app.database.query('alter table api_tokens rename to api_tokens_away');
    try {
      // The table is read again behind a known key at most once a second.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      assert.equal((await send(s.port, 'GET', '/clients', undefined, as(secret))).status, 200, 'the key still works');
      await eventually(
        () => s.logs.some((l) => l.level === 'error' && l.msg === 'the tokens table could not be read again: the tokens known are kept'),
        'the failure logged',
      );
    } finally {
      await s.app.database.query('alter table api_tokens_away rename to api_tokens');
    }
  }));

test('bad token requests are refused naming the field, an unknown center or room included', () =>
  withServer(async (s) => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'x', role: 'root' }, 'role'],
      [{ name: 'has space', role: 'reader' }, 'name'],
      [{ role: 'reader' }, 'name'],
      [{ name: 'x', role: 'reader', expires: 'soon' }, 'expires'],
      [{ name: 'x', role: 'reader', shell: 'yes' }, 'shell'],
      [{ name: 'x', role: 'reader', centers: [2] }, 'centers'],
      [{ name: 'x', role: 'reader', rooms: [9] }, 'rooms'],
      [{ name: 'x', role: 'reader', rooms: [0] }, 'rooms[0]'],
      [{ name: 'x', role: 'reader', rooms: ['a'] }, 'rooms[0]'],
    ];
    for (const [body, field] of cases) {
      const r = await s.post('/tokens', body);
      assert.deepEqual([r.status, r.body.field], [400, field], JSON.stringify(body));
    }
    assert.equal((await s.post('/tokens', { name: 'x', role: 'reader' })).status, 200);
    const twice = await s.post('/tokens', { name: 'x', role: 'admin' });
    assert.deepEqual([twice.status, twice.body.error, twice.body.field], [400, 'duplicate', 'name']);
    assert.deepEqual((await s.get('/tokens')).body.tokens.length, 1, 'nothing half-made');
  }));

test('an expired token is refused like an unknown one', () =>
  withServer(async (s) => {
    const store = s.app.container.resolve(TokenStore);
    const { secret } = await store.create({ name: 'brief', role: 'reader', shell: false, expiresAt: Date.now() + 200 });
    assert.equal((await send(s.port, 'GET', '/clients', undefined, as(secret))).status, 200, 'before');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await send(s.port, 'GET', '/clients', undefined, as(secret))).status, 401, 'after');
    const made = await s.post('/tokens', { name: 'month', role: 'reader', expires: '30d' });
    const days = (Date.parse(made.body.expires) - Date.now()) / 86_400_000;
    assert.ok(days > 29.9 && days <= 30, `expires in 30 days (${days})`);
  }));

test('wrong keys from one address past rest.max_key_failures get 429 for a minute, the right key too, logged once', () =>
  withServer(
    async (s) => {
      for (let i = 0; i < 3; i++) assert.equal((await send(s.port, 'GET', '/clients', undefined, as(`wrong-${i}`))).status, 401);
      for (const key of ['wrong-again', TOKEN]) {
        const r = await send(s.port, 'GET', '/clients', undefined, as(key));
        assert.equal(r.status, 429, key);
        assert.equal(r.body.error, 'too_many_attempts');
        assert.ok(Number(r.headers['retry-after']) > 50, 'Retry-After');
      }
      assert.equal((await send(s.port, 'GET', '/healthz')).status, 200, 'public routes stay open');
      assert.equal(s.logs.filter((l) => /wrong keys from/.test(l.msg)).length, 1, 'logged once');
    },
    { config: { rest: { max_key_failures: 3 } } },
  ));

test('ogserve token create, list and revoke work on the database; the server accepts what they made', async () => {
  const dir = makeTestDir();
  try {
    const first = await startServer({ dir });
    await first.close();
    const config = ['--config', `${dir}/config.json`];
    const made = await ogserve(['token', 'create', '--name', 'monitor', '--role', 'reader', '--expires', '12h', ...config]);
    assert.equal(made.code, 0, made.stderr);
    const secret = made.stdout.trim();
    assert.match(secret, /^ogs_/);
    assert.match(made.stderr, /created monitor {2}reader {2}created .+ {2}expires 20\d\d-.+ {2}last used never; the secret follows/);
    const shell = await ogserve(['token', 'create', '--name', 'ops', '--role', 'operator', '--shell', ...config]);
    assert.equal(shell.code, 0, shell.stderr);

    const refused = await ogserve(['token', 'create', '--name', 'monitor', '--role', 'reader', ...config]);
    assert.deepEqual([refused.code, refused.stderr.trim().split('\n').at(-1)], [1, "ogserve: a token named 'monitor' already exists"]);
    assert.equal((await ogserve(['token', 'create', '--name', 'x', '--role', 'god', ...config])).code, 1);
    assert.equal((await ogserve(['token', 'create', '--role', 'reader', ...config])).code, 2, 'a usage error');

    const listed = await ogserve(['token', 'list', ...config]);
    assert.match(listed.stdout, /^monitor {2}reader {2}/m);
    assert.match(listed.stdout, /^ops {2}operator\+shell {2}.+expires never/m);

    const s = await startServer({ dir });
    try {
      const r = await send(s.port, 'GET', '/clients', undefined, as(secret));
      assert.equal(r.status, 200, 'a token made while the server was stopped');
      assert.equal((await send(s.port, 'POST', '/wol', { clients: [], type: 'broadcast' }, as(secret))).status, 403, 'a reader');
      if (testEngine !== 'sqlite') {
        // A server on MariaDB or PostgreSQL sees a revoke by the command at once.
        assert.equal((await ogserve(['token', 'revoke', 'monitor', ...config])).code, 0);
        let status = 200;
        for (let tries = 0; tries < 50 && status === 200; tries++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          status = (await send(s.port, 'GET', '/clients', undefined, as(secret))).status;
        }
        assert.equal(status, 401, 'revoked while it runs');
      }
    } finally {
      await s.close();
    }
    if (testEngine === 'sqlite') assert.equal((await ogserve(['token', 'revoke', 'monitor', ...config])).code, 0);
    const gone = await ogserve(['token', 'revoke', 'monitor', ...config]);
    assert.deepEqual([gone.code, gone.stderr.trim().split('\n').at(-1)], [1, "ogserve: no token named 'monitor'"]);
  } finally {
    await removeTestStore(dir);
  }
});

test.run();
