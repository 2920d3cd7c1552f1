import assert from 'node:assert/strict';
import { test } from 'uvu';
import { addUser, passwordOf } from '../plugins/auth/people';
import { type TestBrowser, launchBrowser } from '../support/browser';
import { consolePlugins, consoleSite, signInAs } from './site';

let browser: TestBrowser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after(async () => {
  await browser.close();
});

test('an operator limited to a room is offered only the pages they may use, and none of them refuses them', async () => {
  const site = await consoleSite(2, { plugins: [...consolePlugins, 'power', 'energy', 'history'] });
  try {
    await addUser(site.s, 'ana', 'operator', { rooms: [site.room] });
    const page = await browser.page();
    await signInAs(page, site.url, 'ana', passwordOf('ana'));
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    const links = await page.locator('header nav a').allTextContents();
    for (const refused of ['Audit log', 'Scheduler', 'Power', 'Users'])
      assert.ok(!links.includes(refused), `${refused} is not offered: ${links.join(', ')}`);
    assert.ok(links.includes('Fleet') && links.includes('Jobs'), `what they may use is: ${links.join(', ')}`);
    for (const link of links) {
      await page.locator('header nav').getByRole('link', { name: link, exact: true }).click();
      await page.locator('main h1, main section').first().waitFor();
      await page.waitForLoadState('networkidle');
      const refusals = await page.locator('main [role=alert]', { hasText: 'Not allowed' }).allTextContents();
      assert.deepEqual(refusals, [], `${link} refuses nothing`);
    }
  } finally {
    await site.close();
  }
});

test.run();
