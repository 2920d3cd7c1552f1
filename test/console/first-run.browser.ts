import assert from 'node:assert/strict';
import { test } from 'uvu';
import { type TestBrowser, launchBrowser, screenshot, seriousViolations } from '../support/browser';
import { macFor } from '../support/fixtures';
import { startLab } from '../support/lab';
import { consolePlugins, groupRow, signIn } from './site';

let browser: TestBrowser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after(async () => {
  await browser.close();
});

test('a fresh site: the dashboard walks the admin through a center, 40 rooms at once and 60 PCs from a CSV file, with progress and a result line', async () => {
  const lab = await startLab({ ips: ['127.0.70.1'], populate: false, server: { config: { plugins: consolePlugins } } });
  try {
    const url = `http://127.0.0.1:${lab.s.port}`;
    const page = await browser.page({ width: 1366 });
    await signIn(page, url);
    await page.locator('header nav').getByRole('link', { name: 'Dashboard', exact: true }).click();
    const steps = page.locator('section.first-run');
    await steps.getByText('0 of 4 steps done.').waitFor();
    const step = (key: string) => steps.locator(`li[data-step=${key}]`);
    await screenshot(page, 'first-run');
    assert.deepEqual(await seriousViolations(page), [], 'the first-run dashboard passes axe-core');

    await step('center').getByRole('button', { name: 'Add center' }).click();
    await page.locator('dialog').getByLabel('Name', { exact: true }).fill('School 3');
    await page.locator('dialog').getByRole('button', { name: 'Save' }).click();
    await step('center').and(page.locator('[data-done=true]')).waitFor();

    // Forty rooms in one go: a name and a count.
    await step('rooms').getByRole('button', { name: 'Add rooms' }).click();
    const dialog = page.locator('dialog');
    await dialog.getByLabel('Name', { exact: true }).fill('Lab {nn}');
    await dialog.getByLabel('How many').fill('40');
    await dialog.getByLabel('Netmask').fill('255.0.0.0');
    await dialog.getByText('40 rooms: Lab 01 … Lab 40').waitFor();
    await dialog.getByRole('button', { name: 'Add the 40 rooms' }).click();
    await steps.locator('[role=status]', { hasText: '40 rooms added, 0 refused.' }).waitFor();
    await step('rooms').and(page.locator('[data-done=true]')).waitFor();
    const rooms = (await lab.s.get('/scopes')).body.scope[0].scope.map((r: { name: string }) => r.name);
    assert.equal(rooms.length, 40, 'forty rooms');
    assert.deepEqual([rooms[0], rooms[39]], ['Lab 01', 'Lab 40']);

    // Sixty PCs from a CSV file: checked (only what needs a look is listed), added with progress, counted.
    await step('pcs').getByRole('button', { name: 'Import CSV or dhcpd.conf' }).click();
    const csv = [
      'name,ip,mac,room',
      ...Array.from({ length: 60 }, (_, i) => `pc${i + 1},127.0.71.${i + 1},${macFor(200 + i)},Lab 0${1 + (i % 3)}`),
    ];
    await dialog.getByLabel('Or paste it here').fill(csv.join('\n'));
    await dialog.getByRole('button', { name: 'Check the rows' }).click();
    await dialog.locator('caption', { hasText: '60 rows accepted, 0 refused' }).waitFor();
    assert.equal(await dialog.locator('tbody tr').count(), 0, 'no accepted row listed one by one');
    await dialog.getByText('and 60 accepted rows, not listed.').waitFor();
    await dialog.getByRole('button', { name: 'Add the 60 clients' }).click();
    await steps.locator('[role=status]', { hasText: '60 clients added from the file.' }).waitFor();
    await step('pcs').and(page.locator('[data-done=true]')).waitFor();
    assert.equal((await lab.s.get('/client/addresses')).body.clients.length, 60, 'all sixty stored');
    await steps.getByText('3 of 4 steps done.').waitFor();

    // The room menu offers many rooms at once too.
    await page.locator('header nav').getByRole('link', { name: 'Fleet', exact: true }).click();
    await groupRow(page, 'School 3').locator('button.menu').click();
    await page.locator('dialog').getByRole('button', { name: 'Add many rooms' }).click();
    await page.locator('dialog').getByLabel('How', { exact: true }).selectOption('lines');
    await page.locator('dialog').getByLabel('Rooms', { exact: true }).fill('name,netmask\nLab 01,255.0.0.0\nLibrary,255.255.255.0');
    await page.locator('dialog').getByRole('button', { name: 'Add the 2 rooms' }).click();
    await page.locator('dialog [role=status]', { hasText: '1 rooms added, 1 refused.' }).waitFor();
    await page.locator('dialog .refused-rooms', { hasText: 'Lab 01' }).waitFor();
  } finally {
    await lab.close();
  }
});

test('the server page names the bundled plugins that are off and how to turn one on', async () => {
  const lab = await startLab({ ips: [], populate: false, server: { config: { plugins: consolePlugins } } });
  try {
    const page = await browser.page();
    await signIn(page, `http://127.0.0.1:${lab.s.port}`);
    await page.locator('header nav').getByRole('link', { name: 'Server', exact: true }).click();
    await page.locator('li[data-available=dhcp]', { hasText: 'DHCP with ISC Kea' }).waitFor();
    await page.getByText('"plugins": ["+dhcp"]', { exact: false }).waitFor();
    assert.equal(await page.locator('li[data-available=jobs]').count(), 0, 'jobs is on');
  } finally {
    await lab.close();
  }
});

test.run();
