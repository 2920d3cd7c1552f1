import assert from 'node:assert/strict';
import { test } from 'uvu';
import { eventually } from '../support/fake-agent';
import { addUser, login, passwordOf } from '../plugins/auth/people';
import { type TestBrowser, launchBrowser, screenshot } from '../support/browser';
import { send } from '../support/server';
import { clientRow, consolePlugins, consoleSite, groupRow, openFleet, signIn, signInAs } from './site';
import { ManualClock } from '../../testing';
import { AuthClock } from '../../plugins/auth';
// After the server's imports, which load the reflection tsyringe needs.
import { container as rootContainer } from 'tsyringe';

let browser: TestBrowser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after(async () => {
  await browser.close();
});

test('a person signs in with a password: the header names them, changes carry the CSRF token, a reload keeps them signed in, signing out ends the session', async () => {
  const site = await consoleSite(1);
  try {
    await addUser(site.s, 'ana', 'admin');
    const page = await browser.page();
    // Every API request the page sends, with its headers (allHeaders: headers() leaves out the cookie).
    const sent: Promise<{ method: string; path: string; headers: Record<string, string> }>[] = [];
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (r.resourceType() === 'fetch' && url.origin === site.url)
        sent.push(r.allHeaders().then((headers) => ({ method: r.method(), path: url.pathname, headers })));
    });

    await signInAs(page, site.url, 'ana', passwordOf('ana'));
    await page.locator('header .who', { hasText: 'ana (admin)' }).waitFor();
    await openFleet(page);
    const kept = await page.evaluate(() => Object.fromEntries(Object.entries(sessionStorage)));
    assert.deepEqual(kept, { 'ogserve.signin': 'session' }, 'only a marker is kept in the tab, neither the password nor a key');

    await page.getByRole('button', { name: 'Add center' }).click();
    await page.locator('dialog').getByLabel('Name').fill('Annex');
    await page.locator('dialog').getByRole('button', { name: 'Save' }).click();
    await groupRow(page, 'Annex').waitFor();

    await page.reload();
    await page.locator('header .who', { hasText: 'ana (admin)' }).waitFor();
    await page.getByRole('button', { name: 'Add center' }).click();
    await page.locator('dialog').getByLabel('Name').fill('Library');
    await page.locator('dialog').getByRole('button', { name: 'Save' }).click();
    await groupRow(page, 'Library').waitFor();
    // The client page reads with POST + X-HTTP-Method-Override: GET, which needs the token too.
    await clientRow(page, site.ips[0]!).getByRole('link').click();
    await page.locator('.client-page h1', { hasText: 'pc01' }).waitFor();
    await screenshot(page, 'signed-in-by-password');
    const centers = (await site.s.get('/scopes')).text;
    assert.ok(centers.includes('"Annex"') && centers.includes('"Library"'), 'both centers added, before and after the reload');

    const cookie = (await page.context().cookies()).find((c) => c.name === 'ogserve_session');
    assert.ok(cookie?.httpOnly, 'the session is an HttpOnly cookie');
    const requests = await Promise.all(sent);
    const changes = requests.filter((r) => r.method !== 'GET');
    assert.ok(
      changes.some((r) => r.path === '/center/add'),
      'centers added through the API',
    );
    assert.ok(
      changes.some((r) => r.headers['x-http-method-override'] === 'GET'),
      'a GET with a body was sent as POST',
    );
    // The sign-in page asks how people may sign in as anyone does: no key, no cookie.
    for (const r of requests.filter((r) => r.path === '/auth/providers'))
      assert.deepEqual(
        [r.headers.authorization, r.headers.cookie],
        [undefined, undefined],
        'GET /auth/providers is sent with no credentials',
      );
    for (const r of requests.filter((r) => r.path !== '/auth/login' && r.path !== '/auth/providers')) {
      assert.equal(r.headers.authorization, undefined, `${r.method} ${r.path} sends no Authorization`);
      assert.match(r.headers.cookie ?? '', /ogserve_session=/, `${r.method} ${r.path} sends the cookie`);
      if (r.method !== 'GET') assert.ok(r.headers['x-csrf-token'], `${r.method} ${r.path} sends X-CSRF-Token`);
    }

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('User name', { exact: true }).waitFor();
    const logout = (await Promise.all(sent)).find((r) => r.path === '/auth/logout');
    assert.ok(logout?.method === 'POST' && logout.headers['x-csrf-token'], 'signing out is POST /auth/logout, with the token');
    assert.equal(await page.evaluate(() => sessionStorage.length), 0, 'nothing kept after signing out');
    const after = await send(site.s.port, 'GET', '/auth/me', undefined, { Cookie: `ogserve_session=${cookie!.value}` });
    assert.equal(after.status, 401, 'the cookie no longer works once signed out');
  } finally {
    await site.close();
  }
});

test('a refused sign-in says why: a wrong password, a disabled account, the directory down, and how long to wait after too many failures', async () => {
  // A directory nobody answers at (port 1 refuses): names no local user has are asked of it.
  const ldap = { url: 'ldap://127.0.0.1:1', user_base: 'dc=example,dc=org', timeout_ms: 1000 };
  // Time stands still for the sign-in throttle: the wait the failures below earn does not run out.
  const services = rootContainer.createChildContainer();
  services.register(AuthClock, { useValue: new ManualClock(Date.now()) });
  const site = await consoleSite(0, { auth: { free_failures: 1, ldap } }, services);
  try {
    await addUser(site.s, 'ana', 'operator');
    await addUser(site.s, 'bea', 'operator');
    assert.equal((await site.s.post('/users/disable', { username: 'bea' })).status, 200, 'bea disabled');
    const page = await browser.page();
    const alert = page.locator('form [role=alert]');

    await signInAs(page, site.url, 'ana', 'not-her-password');
    await alert.filter({ hasText: 'Not signed in: wrong username or password.' }).waitFor();
    await screenshot(page, 'sign-in-wrong-password');
    assert.equal(await page.getByLabel('Password', { exact: true }).inputValue(), 'not-her-password', 'what was typed stays to correct');

    await signInAs(page, site.url, 'bea', passwordOf('bea'));
    await alert.filter({ hasText: "You may not sign in: the account 'bea' is disabled." }).waitFor();

    await signInAs(page, site.url, 'carl', 'whatever-he-types');
    await alert.filter({ hasText: 'The directory did not answer' }).waitFor();

    // One more failure than is free: the next attempt must wait.
    assert.equal((await login(site.s.port, 'ana', 'still-wrong')).status, 401);
    await signInAs(page, site.url, 'ana', passwordOf('ana'));
    const wait = await alert.filter({ hasText: 'Too many failed sign-ins' }).textContent();
    assert.match(wait ?? '', /try again in [1-9]\d* s\./, 'the wait from Retry-After');
    assert.equal(await page.evaluate(() => sessionStorage.length), 0, 'nothing kept after a refusal');
  } finally {
    await site.close();
  }
});

test('the API key still signs in and the header says api_token (admin); a server without the auth plugin offers only the key', async () => {
  const site = await consoleSite(0);
  try {
    const page = await browser.page();
    await signIn(page, site.url);
    await page.locator('header .who', { hasText: 'api_token (admin)' }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Add center' }).click();
    await page.locator('dialog').getByLabel('Name').fill('Annex');
    await page.locator('dialog').getByRole('button', { name: 'Save' }).click();
    await groupRow(page, 'Annex').waitFor();
    await page.reload();
    await page.locator('header .who', { hasText: 'api_token (admin)' }).waitFor();
  } finally {
    await site.close();
  }
  const plain = await consoleSite(0, { plugins: ['inventory', 'console'] });
  try {
    const page = await browser.page();
    await page.goto(`${plain.url}/`);
    await page.getByLabel('API key').waitFor();
    assert.equal(await page.getByRole('radio').count(), 0, 'no choice of way: GET /auth/providers is unknown there');
    assert.equal(await page.getByLabel('User name').count(), 0, 'no user name asked');
    await signIn(page, plain.url);
    await page.getByRole('link', { name: 'Fleet' }).waitFor();
    assert.equal(await page.locator('header .who').count(), 0, 'no auth plugin: nobody to name');
    assert.equal(await page.getByRole('link', { name: 'Users' }).count(), 0, 'no Users page');
  } finally {
    await plain.close();
  }
});

test('a session follows the event stream: the ticket is taken with the CSRF token, and a state change shows without a reload', async () => {
  const site = await consoleSite(1, { plugins: [...consolePlugins, 'events'] });
  try {
    await addUser(site.s, 'ana', 'operator');
    const page = await browser.page();
    const tickets: number[] = [];
    page.on('response', (r) => {
      if (new URL(r.url()).pathname === '/events/ticket') tickets.push(r.status());
    });
    await signInAs(page, site.url, 'ana', passwordOf('ana'));
    await page.locator('header .who', { hasText: 'ana (operator)' }).waitFor();
    // Signed in, the fleet's states follow the stream (a ticket), and the dashboard, where a
    // session lands, follows the jobs' events (its own).
    await page.locator('.dashboard-jobs[data-follow=events]').waitFor();
    await eventually(async () => tickets.length >= 2, 'two tickets');
    assert.deepEqual(tickets.splice(0), [200, 200], 'two tickets, both granted');
    await openFleet(page);
    await page.locator('.live', { hasText: /^Live$/ }).waitFor();
    assert.deepEqual(tickets, [], "the fleet's stream goes on: no ticket more");
    const row = clientRow(page, site.ips[0]!);
    await row.locator('.state-off').waitFor();
    await site.connect(site.ips[0]!, { mode: 'linux' });
    await row.locator('.state-LNX').waitFor({ timeout: 5000 });
    assert.equal(await page.locator('.live').textContent(), 'Live', 'still the stream, not polling');
  } finally {
    await site.close();
  }
});

test.run();
