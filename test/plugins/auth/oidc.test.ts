// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { CookieJar, visit } from '../../support/cookie-jar';
import { addCenter, addClient, addRoom, macFor } from '../../support/fixtures';
import { type TestProvider, type TestProviderOptions, startOidcProvider } from '../../support/oidc-provider';
import { type TestServer, makeTestDir, removeTestStore, send, startServer } from '../../support/server';

/**
 * A server and a provider that know each other. ogserve's port must be in the provider's
 * redirect URI, and the provider's in ogserve's config: the server starts once to learn its
 * port, and again on that port with the provider configured.
 */
async function withProvider(
  fn: (s: TestServer, provider: TestProvider) => Promise<void>,
  options: Partial<TestProviderOptions> & { issuerOf?: (provider: TestProvider) => string } = {},
): Promise<void> {
  const dir = makeTestDir();
  const first = await startServer({ dir });
  const port = first.port;
  await first.close();
  const provider = await startOidcProvider({
    redirectUri: `http://127.0.0.1:${port}/auth/oidc/campus/callback`,
    accounts: {
      jdoe: { groups: ['helpdesk'] },
      guest: { groups: ['visitors'] },
      boss: { groups: ['helpdesk', 'fleet-admins'] },
      mixed: { groups: ['readers', 'science-admins'] },
    },
    ...options,
  });
  let s: TestServer | undefined;
  try {
    s = await startServer({
      dir,
      config: {
        rest: { port },
        auth: {
          oidc: [
            {
              name: 'campus',
              label: 'Campus account',
              issuer: options.issuerOf?.(provider) ?? provider.issuer,
              client_id: provider.clientId,
              client_secret: provider.clientSecret,
              allow_http: true,
              groups: {
                helpdesk: { role: 'operator', centers: [1] },
                'fleet-admins': { role: 'admin' },
                readers: { role: 'reader' },
                'science-admins': { role: 'admin', centers: [1] },
              },
            },
          ],
        },
      },
    });
    await fn(s, provider);
  } finally {
    await s?.close();
    await provider.close();
    await removeTestStore(dir);
  }
}

/** Through the provider and back: the answer of ogserve's callback. */
async function signInThrough(
  s: TestServer,
  jar: CookieJar,
  change: (callback: URL) => Promise<void> | void = () => undefined,
): Promise<{ status: number; location?: string }> {
  let url = `http://127.0.0.1:${s.port}/auth/oidc/campus/login`;
  for (let hop = 0; hop < 10; hop++) {
    const callback = new URL(url);
    const atCallback = callback.pathname === '/auth/oidc/campus/callback';
    if (atCallback) await change(callback);
    const answer = await visit(callback.href, jar);
    if (atCallback || !answer.location) return answer;
    url = answer.location;
  }
  throw new Error('too many redirects');
}

const ogserveHost = (s: TestServer) => `127.0.0.1:${s.port}`;

test('a person signs in through an OpenID provider: PKCE, state and nonce, groups mapped to a role', () =>
  withProvider(async (s) => {
    const providers = await send(s.port, 'GET', '/auth/providers');
    assert.deepEqual(providers.body, { password: true, providers: [{ name: 'campus', label: 'Campus account' }] });
    const jar = new CookieJar();
    const login = await visit(`http://127.0.0.1:${s.port}/auth/oidc/campus/login`, jar);
    assert.equal(login.status, 302);
    const authorize = new URL(login.location!);
    assert.equal(authorize.hostname, '127.0.0.2');
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
    for (const parameter of ['code_challenge', 'state', 'nonce']) assert.ok(authorize.searchParams.get(parameter), parameter);

    const done = await signInThrough(s, new CookieJar());
    assert.deepEqual([done.status, done.location], [302, `http://127.0.0.1:${s.port}/console/`]);
    const jar2 = new CookieJar();
    await signInThrough(s, jar2);
    const session = jar2.get(ogserveHost(s), 'ogserve_session');
    assert.ok(session, 'the session cookie is set');
    assert.equal(jar2.get(ogserveHost(s), 'ogserve_oidc'), undefined, 'the sign-in cookie is gone');
    const me = await send(s.port, 'GET', '/auth/me', undefined, { Cookie: `ogserve_session=${session}` });
    assert.deepEqual([me.body.name, me.body.source, me.body.role, me.body.scope], ['jdoe@campus', 'campus', 'operator', 'centers 1']);
  }));

test('several groups give the union of what each allows; a person in no mapped group is told so', () =>
  withProvider(async (s, provider) => {
    const science = await addCenter(s, 'Science');
    const arts = await addCenter(s, 'Arts');
    await addClient(s, await addRoom(s, science, 'Lab'), '127.0.41.1', macFor(1));
    await addClient(s, await addRoom(s, arts, 'Studio'), '127.0.41.2', macFor(2));
    provider.signInAs('mixed');
    const jar = new CookieJar();
    await signInThrough(s, jar);
    const cookie = `ogserve_session=${jar.get(ogserveHost(s), 'ogserve_session')}`;
    const me = await send(s.port, 'GET', '/auth/me', undefined, { Cookie: cookie });
    assert.deepEqual([me.body.role, me.body.scope], ['admin', 'admin: centers 1; reader: the whole fleet']);
    const asMixed = { Cookie: cookie, 'X-CSRF-Token': me.body.csrf as string };
    const scopes = (await send(s.port, 'GET', '/scopes', undefined, asMixed)).text;
    assert.ok(scopes.includes('127.0.41.1') && scopes.includes('127.0.41.2'), 'a reader of the whole fleet');
    assert.equal((await send(s.port, 'POST', '/mode', { clients: ['127.0.41.1'], mode: 'pxe' }, asMixed)).status, 200, 'admin of Science');
    const arts403 = await send(s.port, 'POST', '/mode', { clients: ['127.0.41.2'], mode: 'pxe' }, asMixed);
    assert.equal(arts403.status, 403, 'not of Arts');
    assert.match(arts403.body.message, /client 127\.0\.41\.2 is outside what the key 'mixed@campus' may reach \(centers 1\)/);
    assert.equal((await send(s.port, 'POST', '/center/add', { name: 'x' }, asMixed)).status, 403, 'nor of the whole fleet');

    provider.signInAs('boss');
    const bossJar = new CookieJar();
    await signInThrough(s, bossJar);
    const boss = await send(s.port, 'GET', '/auth/me', undefined, {
      Cookie: `ogserve_session=${bossJar.get(ogserveHost(s), 'ogserve_session')}`,
    });
    assert.deepEqual([boss.body.role, boss.body.scope], ['admin', 'admin: the whole fleet; operator: centers 1']);
    provider.signInAs('guest');
    const refused = await signInThrough(s, new CookieJar());
    assert.equal(refused.status, 302);
    assert.match(decodeURIComponent(refused.location!), /\/console\/\?signin_error='guest' is in no group that ogserve gives a role to/);
  }));

test('a forged state, a callback from another browser and a code used twice are refused', () =>
  withProvider(async (s) => {
    const forged = new CookieJar();
    const answer = await signInThrough(s, forged, (callback) => callback.searchParams.set('state', 'forged'));
    assert.match(decodeURIComponent(answer.location!), /signin_error=the provider's answer was refused/);
    assert.equal(forged.get(ogserveHost(s), 'ogserve_session'), undefined);

    let code = '';
    const stolen = await signInThrough(s, new CookieJar(), async (callback) => {
      code = callback.href;
      // Another browser (no sign-in cookie) brings the code back.
      const elsewhere = await visit(callback.href, new CookieJar());
      assert.match(decodeURIComponent(elsewhere.location!), /signin_error=this sign-in was not begun in this browser/);
    });
    assert.equal(stolen.status, 302);
    assert.match(stolen.location!, /\/console\/$/, 'the browser that began it still finishes');
    const again = new CookieJar();
    const replay = await visit(code, again);
    assert.match(decodeURIComponent(replay.location!), /signin_error=/, 'the same answer twice');
    assert.equal(again.get(ogserveHost(s), 'ogserve_session'), undefined);
  }));

test('a tampered ID token is refused', () =>
  withProvider(async (s, provider) => {
    provider.tamperNextIdToken();
    const jar = new CookieJar();
    const answer = await signInThrough(s, jar);
    assert.match(decodeURIComponent(answer.location!), /signin_error=the provider's answer was refused/);
    assert.equal(jar.get(ogserveHost(s), 'ogserve_session'), undefined);
    assert.ok(s.logs.some((line) => line.msg === 'an OpenID sign-in was refused'));
  }));

test('an expired code is refused', () =>
  withProvider(
    async (s) => {
      const jar = new CookieJar();
      const answer = await signInThrough(s, jar, () => new Promise((resolve) => setTimeout(resolve, 2100)));
      assert.match(decodeURIComponent(answer.location!), /signin_error=the provider's answer was refused/);
      assert.equal(jar.get(ogserveHost(s), 'ogserve_session'), undefined);
    },
    { codeTtlS: 1 },
  ));

test('a provider that says it is another issuer is not trusted', () =>
  withProvider(
    async (s) => {
      const answer = await visit(`http://127.0.0.1:${s.port}/auth/oidc/campus/login`, new CookieJar());
      assert.equal(answer.status, 302);
      assert.match(decodeURIComponent(answer.location!), /\/console\/\?signin_error=the provider 'campus' did not answer/);
    },
    { claimedIssuer: 'http://127.0.0.2:9/' },
  ));

test.run();
