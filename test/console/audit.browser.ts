import assert from 'node:assert/strict';
import { test } from 'uvu';
import { type TestBrowser, launchBrowser, screenshot, seriousViolations } from '../support/browser';
import { eventually } from '../support/fake-agent';
import { addRoom, macFor } from '../support/fixtures';
import { consoleSite, signIn } from './site';

let browser: TestBrowser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after(async () => {
  await browser.close();
});

test("the audit log shows what each write changed ('room: Lab 1 → Lab 2') and links a command's job", async () => {
  const site = await consoleSite(2);
  try {
    const [first, second] = site.ips as [string, string];
    const lab2 = await addRoom(site.s, site.center, 'Lab 2', '255.0.0.0');
    const { id } = (await site.s.get('/client/info', { client: [first] })).body;
    assert.equal((await site.s.post('/client/update', { id, ip: first, name: 'front-desk', room: lab2 })).status, 200);
    assert.equal((await site.s.post('/client/delete', { clients: [second] })).status, 200);
    const csv = ['ip,mac,room,name', ...[1, 2, 3, 4].map((n) => `127.0.9.${n},${macFor(90 + n)},${site.room},new-${n}`)];
    assert.equal((await site.s.post('/client/import', { csv: csv.join('\n') })).status, 200);
    const refresh = await site.s.post('/refresh', { clients: [first] });
    assert.equal(refresh.status, 200, refresh.text);

    const page = await browser.page();
    await signIn(page, site.url);
    await page.getByRole('link', { name: 'Audit log', exact: true }).click();
    const rows = page.locator('tr[data-audit]');
    await rows.first().waitFor();

    const update = rows.filter({ hasText: 'POST /client/update' });
    const record = update.locator(`li[data-record="client:${id}"]`);
    assert.equal(await record.locator('strong').innerText(), 'PC front-desk');
    assert.equal(await record.locator('[data-field=room]').innerText(), 'room: Lab 1 → Lab 2');
    assert.equal(await record.locator('[data-field=name]').innerText(), 'name: pc01 → front-desk');
    const removed = rows.filter({ hasText: 'POST /client/delete' });
    assert.equal(await removed.locator('li strong').innerText(), 'PC pc02 (removed)', 'a delete shows what went');
    assert.equal(await removed.locator('[data-field=room]').innerText(), 'room: Lab 1');
    const added = rows.filter({ hasText: 'POST /room/add' }).first();
    assert.equal(await added.locator('li strong').innerText(), 'room Lab 2 (added)', 'an add shows the new values');
    assert.equal(await added.locator('[data-field=netmask]').innerText(), 'netmask: 255.0.0.0');

    // Four PCs at once: the list opens on demand.
    const imported = rows.filter({ hasText: 'POST /client/import' });
    const many = imported.locator('details summary');
    assert.equal(await many.innerText(), '4 records changed');
    assert.equal(await imported.locator('li[data-record]').first().isVisible(), false, 'closed at first');
    await many.click();
    assert.equal(await imported.locator('li[data-record] strong').last().innerText(), 'PC new-4 (added)');

    const command = rows.filter({ hasText: 'POST /refresh' }).locator('.audit-command');
    assert.equal(await command.innerText(), `Job ${refresh.body.job} Refresh on front-desk`);
    assert.deepEqual(await seriousViolations(page), [], 'no serious accessibility violation');
    await screenshot(page, 'audit-changes');
    await command.getByRole('link', { name: `Job ${refresh.body.job}` }).click();
    await page.locator('h1', { hasText: `Job ${refresh.body.job}: Refresh` }).waitFor();
  } finally {
    await site.close();
  }
});

test('the audit log says what a wake, a scheduler write and a dry-run import did, and narrows to the days asked', async () => {
  const site = await consoleSite(2);
  try {
    const [first] = site.ips as [string, string];
    const wake = await site.s.post('/wol', { clients: [first], type: 'broadcast' });
    assert.equal(wake.status, 200, wake.text);
    const procedure = await site.s.post('/procedure/add', { center: site.center, name: 'nightly', steps: [{ command: 'refresh' }] });
    assert.equal(procedure.status, 200, procedure.text);
    const csv = `ip,mac,room,name\n127.0.9.1,${macFor(91)},${site.room},checked-only`;
    assert.equal((await site.s.post('/client/import', { csv, dry_run: true })).status, 200);
    await eventually(async () => (await site.s.get('/audit?path=/client/import')).body.entries.length > 0, 'all written');

    const page = await browser.page();
    await signIn(page, site.url);
    await page.getByRole('link', { name: 'Audit log', exact: true }).click();
    const rows = page.locator('tr[data-audit]');
    await rows.first().waitFor();
    const woke = rows.filter({ hasText: 'POST /wol' }).locator('.audit-command');
    await woke.getByRole('link', { name: /^Job \d+$/ }).waitFor();
    assert.match(await woke.innerText(), /^Job \d+ Wake on pc01$/, 'the wake, its job and its PC');
    const added = rows.filter({ hasText: 'POST /procedure/add' });
    assert.equal(await added.locator('li strong').innerText(), 'procedure nightly (added)');
    assert.equal(await added.locator('[data-field=name]').innerText(), 'name: nightly');
    const checked = rows.filter({ hasText: 'POST /client/import' });
    await checked.getByText('A check only (dry run): nothing was written.').waitFor();

    // Days on the site's clock: tomorrow holds nothing yet, today all of it.
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel('From', { exact: true }).fill(day(1));
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.getByText('No entry matches.').waitFor();
    await page.getByLabel('From', { exact: true }).fill(day(-1));
    await page.getByLabel('To', { exact: true }).fill(day(1));
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await rows.filter({ hasText: 'POST /wol' }).waitFor();
    assert.deepEqual(await seriousViolations(page), [], 'no serious accessibility violation');
  } finally {
    await site.close();
  }
});

test.run();
