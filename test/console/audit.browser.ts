import assert from 'node:assert/strict';
import { test } from 'uvu';
import { type TestBrowser, launchBrowser, screenshot, seriousViolations } from '../support/browser';
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
    assert.equal(await command.innerText(), `Job ${refresh.body.job} refresh on front-desk`);
    assert.deepEqual(await seriousViolations(page), [], 'no serious accessibility violation');
    await screenshot(page, 'audit-changes');
    await command.getByRole('link', { name: `Job ${refresh.body.job}` }).click();
    await page.locator('h1', { hasText: `Job ${refresh.body.job}: refresh` }).waitFor();
  } finally {
    await site.close();
  }
});

test.run();
