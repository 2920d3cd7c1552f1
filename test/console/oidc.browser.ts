import assert from 'node:assert/strict';
import type { Request } from 'playwright-core';
import { test } from 'uvu';
import { type TestBrowser, launchBrowser, screenshot } from '../support/browser';
import { freePort } from '../support/child-server';
import { type TestProvider, startOidcProvider } from '../support/oidc-provider';
import { type ConsoleSite, clientRow, consoleSite, groupRow, openFleet } from './site';

let browser: TestBrowser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after(async () => {
  await browser.close();
});

/**
 * A console site and a provider on 127.0.0.2 (another site to the browser) that know each
 * other: ogserve's port is in the provider's redirect URI and the provider's in ogserve's
 * config, so the port is chosen first. The site's one center (id 1) is the help desk's.
 */
async function withCampus(fn: (site: ConsoleSite, provider: TestProvider) => Promise<void>): Promise<void> {
  const port = await freePort();
  const provider = await startOidcProvider({
    redirectUri: `http://127.0.0.1:${port}/auth/oidc/campus/callback`,
    accounts: { jdoe: { groups: ['helpdesk'] }, guest: { groups: ['visitors'] } },
  });
  let site: ConsoleSite | undefined;
  try {
    site = await consoleSite(1, {
      rest: { port },
      auth: {
        oidc: [
          {
            name: 'campus',
            label: 'Campus account',
            issuer: provider.issuer,
            client_id: provider.clientId,
            client_secret: provider.clientSecret,
            allow_http: true,
            groups: { helpdesk: { role: 'operator', centers: [1] } },
          },
        ],
      },
    });
    assert.equal(site.center, 1, 'the center the help desk is given');
    await fn(site, provider);
  } finally {
    await site?.close();
    await provider.close();
  }
}

test('a person signs in with a campus account: through the provider on another site and back, signed in as jdoe@campus (operator), and a wake carries the CSRF token', () =>
  withCampus(async (site, provider) => {
    provider.signInAs('jdoe');
    const page = await browser.page();
    const navigations: Request[] = [];
    const fetches: Request[] = [];
    page.on('request', (r) => {
      if (r.isNavigationRequest()) navigations.push(r);
      else if (r.resourceType() === 'fetch') fetches.push(r);
    });
    await page.goto(`${site.url}/`);
    await page.getByRole('button', { name: 'Sign in with Campus account' }).click();
    await page.locator('header .who', { hasText: 'jdoe@campus (operator)' }).waitFor();
    await openFleet(page);
    await screenshot(page, 'signed-in-by-provider');
    assert.equal(await page.locator('header .who').getAttribute('data-who'), 'jdoe@campus');
    assert.equal(new URL(page.url()).pathname, '/console/', 'landed on the console');

    const visited = navigations.map((r) => new URL(r.url()));
    assert.ok(
      visited.some((u) => u.origin === provider.issuer),
      `the browser went to the provider: ${visited.map((u) => u.href).join(', ')}`,
    );
    const callback = navigations.find((r) => new URL(r.url()).pathname === '/auth/oidc/campus/callback');
    assert.ok(callback, 'the provider sent the browser back to the callback');
    assert.match((await callback.allHeaders()).cookie ?? '', /ogserve_oidc=/, 'the Lax sign-in cookie came back from the other site');
    const cookies = await page.context().cookies(site.url);
    const session = cookies.find((c) => c.name === 'ogserve_session');
    assert.equal(session?.sameSite, 'Strict', 'the session cookie is Strict');
    assert.equal(
      cookies.find((c) => c.name === 'ogserve_oidc'),
      undefined,
      'the sign-in cookie is gone',
    );

    // Something that changes data: a wake of the help desk's room.
    await groupRow(page, 'Lab 1').locator('input[type=checkbox]').check();
    await page.locator('[data-action=wake]').click();
    await page.locator('dialog').getByRole('button', { name: 'Wake' }).click();
    const [packet] = await site.wol.waitFor(1);
    assert.equal(packet?.data.length, 102, 'the magic packet went out');
    await page.locator('details.run').first().locator(`tr[data-ip="${site.ips[0]}"] .outcome-sent`).waitFor();

    const api = await Promise.all(
      fetches
        .filter((r) => new URL(r.url()).origin === site.url)
        .map(async (r) => ({ method: r.method(), path: new URL(r.url()).pathname, headers: await r.allHeaders() })),
    );
    const wake = api.find((r) => r.method === 'POST' && r.path !== '/events/ticket' && r.headers['x-http-method-override'] === undefined);
    assert.ok(wake, `a change was sent: ${api.map((r) => `${r.method} ${r.path}`).join(', ')}`);
    for (const r of api.filter((r) => r.path !== '/auth/providers')) {
      assert.equal(r.headers.authorization, undefined, `${r.method} ${r.path} sends no Authorization`);
      assert.match(r.headers.cookie ?? '', /ogserve_session=/, `${r.method} ${r.path} sends the Strict session cookie`);
      if (r.method !== 'GET') assert.ok(r.headers['x-csrf-token'], `${r.method} ${r.path} sends X-CSRF-Token`);
    }
    const audit = await site.s.get('/audit?token=jdoe@campus');
    assert.ok(audit.text.includes('/wol'), `the wake is in the audit log under jdoe@campus: ${audit.text.slice(0, 300)}`);

    await page.reload();
    await page.locator('header .who', { hasText: 'jdoe@campus (operator)' }).waitFor();
    await clientRow(page, site.ips[0]!).waitFor();
  }));

test('a person in no group that ogserve maps is back on the sign-in page, told why, with the address bar cleaned', () =>
  withCampus(async (site, provider) => {
    provider.signInAs('guest');
    const page = await browser.page();
    await page.goto(`${site.url}/`);
    await page.getByRole('button', { name: 'Sign in with Campus account' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: "The sign-in through the provider did not succeed: 'guest' is in no group that ogserve gives a role to" })
      .waitFor();
    await screenshot(page, 'sign-in-provider-refused');
    const url = new URL(page.url());
    assert.deepEqual([url.pathname, url.search], ['/console/', ''], 'signin_error is taken out of the address bar');
    await page.getByRole('button', { name: 'Sign in with Campus account' }).waitFor();
    await page.getByLabel('User name', { exact: true }).waitFor();
    assert.equal(await page.locator('header .who').count(), 0, 'nobody signed in');
    assert.equal(await page.evaluate(() => sessionStorage.length), 0, 'the tab is not marked signed in');
    const cookies = await page.context().cookies(site.url);
    assert.equal(
      cookies.find((c) => c.name === 'ogserve_session'),
      undefined,
      'no session cookie',
    );
    await page.reload();
    await page.getByRole('button', { name: 'Sign in with Campus account' }).waitFor();
    assert.equal(await page.getByRole('alert').count(), 0, 'a reload does not say it again');
  }));

test.run();
