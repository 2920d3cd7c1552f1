import assert from 'node:assert/strict';
import { test } from 'uvu';
import { type TestBrowser, launchBrowser, seriousViolations } from '../support/browser';
import { eventually } from '../support/fake-agent';
import { startKea } from '../support/kea';
import { consolePlugins, consoleSite, signIn } from './site';

let browser: TestBrowser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after(async () => {
  await browser.close();
});

test("the dashboard says whether Kea serves the inventory's reservations, and warns when it stops answering", async () => {
  // The site's own subnet away from the rooms' 127.0.0.0/8.
  const kea = await startKea({ siteSubnet: '192.0.2.0/24' });
  const site = await consoleSite(2, {
    plugins: [...consolePlugins, 'dhcp'],
    dhcp: { control_agent: kea.url, debounce_ms: 100, retry_max_ms: 1000 },
  });
  try {
    await eventually(async () => (await site.s.get('/dhcp/status')).body.in_step === true, 'Kea in step', 10_000);
    const page = await browser.page();
    await signIn(page, site.url);
    await page.getByRole('link', { name: 'Dashboard', exact: true }).click();
    const line = page.locator('li[data-attention=dhcp]');
    await line.waitFor();
    assert.equal(await line.innerText(), 'DHCP (Kea): in step with the inventory');
    assert.equal(await line.getAttribute('class'), null, 'no warning');

    await kea.stopServer();
    await page.getByRole('link', { name: 'Fleet', exact: true }).click();
    await page.getByRole('link', { name: 'Dashboard', exact: true }).click();
    await page.locator('li[data-attention=dhcp][data-in-step=false]').waitFor();
    assert.match(await line.innerText(), /^DHCP \(Kea\): not answering, changes wait for it \(.+\)$/);
    assert.equal(await line.getAttribute('class'), 'warning');
  } finally {
    await site.close();
    await kea.close();
  }
});

test('the DHCP page: whether Kea is in step, a push now, and a configuration Kea ran before given back after a confirmation', async () => {
  const kea = await startKea({ siteSubnet: '192.0.2.0/24' });
  const site = await consoleSite(2, {
    plugins: [...consolePlugins, 'dhcp'],
    dhcp: { control_agent: kea.url, debounce_ms: 100, retry_max_ms: 1000 },
  });
  try {
    await eventually(async () => (await site.s.get('/dhcp/status')).body.in_step === true, 'Kea in step', 10_000);
    const page = await browser.page();
    await signIn(page, site.url);
    await page.locator('header nav').getByRole('link', { name: 'DHCP', exact: true }).click();
    await page.locator('dd[data-in-step=true]', { hasText: 'In step with the inventory' }).waitFor();
    await page.getByRole('button', { name: 'Put Kea in step now' }).click();
    await page.locator('[role=status]', { hasText: /Kea (was in step already|is in step now)/ }).waitFor();
    const backup = page.locator('tr[data-backup]').first();
    await backup.waitFor();
    const id = await backup.getAttribute('data-backup');
    await backup.getByRole('button', { name: `Give it back to Kea: backup ${id}` }).click();
    await page.locator('dialog .warning', { hasText: 'whatever the inventory says now' }).waitFor();
    await page.locator('dialog').getByRole('button', { name: 'Give it back to Kea' }).click();
    await page.locator('[role=status]', { hasText: `Backup ${id} given back to Kea.` }).waitFor();
    assert.deepEqual(await seriousViolations(page), [], 'the DHCP page passes axe-core');
  } finally {
    await site.close();
    await kea.close();
  }
});

test.run();
