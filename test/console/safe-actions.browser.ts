import assert from 'node:assert/strict';
import { test } from 'uvu';
import { type TestBrowser, launchBrowser, screenshot } from '../support/browser';
import { eventually } from '../support/fake-agent';
import { clientRow, consoleSite, groupRow, signIn } from './site';

let browser: TestBrowser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after(async () => {
  await browser.close();
});

/** The action buttons the toolbar offers, by their data-action. */
const offered = (page: import('playwright-core').Page) =>
  page.locator('[role=toolbar] [data-action]').evaluateAll((buttons) => buttons.map((b) => b.getAttribute('data-action')));

test('an operator is offered only what an operator may do: no delete, move, restore, partition, shell, add center or tree menus', async () => {
  const site = await consoleSite(1);
  try {
    const made = await site.s.post('/tokens', { name: 'desk', role: 'operator' });
    assert.equal(made.status, 200, made.text);
    const page = await browser.page();
    await signIn(page, site.url);
    await groupRow(page, 'Lab 1').waitFor();
    const admin = await offered(page);
    for (const action of ['wake', 'delete', 'move', 'restore-image', 'setup', 'shell'])
      assert.ok(admin.includes(action), `admin: ${action}`);
    assert.equal(await groupRow(page, 'Lab 1').locator('button.menu').count(), 1, 'admin: the room has its menu');
    assert.equal(await groupRow(page, 'Lab 1').locator('.kind').innerText(), 'Room', 'a label begins with a capital');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, site.url, made.body.secret);
    await groupRow(page, 'Lab 1').waitFor();
    await clientRow(page, site.ips[0]!).locator('input[type=checkbox]').check();
    const operator = await offered(page);
    for (const action of ['wake', 'poweroff', 'reboot', 'refresh', 'boot']) assert.ok(operator.includes(action), `operator: ${action}`);
    for (const action of ['delete', 'move', 'restore-image', 'create-image', 'setup', 'shell'])
      assert.ok(!operator.includes(action), `operator: no ${action} (${operator.join(', ')})`);
    assert.equal(await page.getByRole('button', { name: 'Add center' }).count(), 0, 'no Add center');
    assert.equal(await groupRow(page, 'Lab 1').locator('button.menu').count(), 0, 'no menu on the room');
    await screenshot(page, 'operator-toolbar');
  } finally {
    await site.close();
  }
});

test('before a restore the PCs in a user session and those switched off are listed, and nothing is sent until the admin says to send anyway', async () => {
  const site = await consoleSite(3);
  try {
    const [ready, working, off] = site.ips as [string, string, string];
    const live = await site.connect(ready);
    live.on('image/restore', (r) => ({ body: { disk: r.body.disk, partition: r.body.partition, image_id: r.body.id } }));
    live.on('image/create', (r) => ({
      body: { ...r.body, software: '', filesystem: 'EXT4', datasize: 1024, size: 1024, perms: 420, lastupdate: 1664897550, checksum: '' },
    }));
    const windows = await site.connect(working, { mode: 'windows' });
    windows.event('start', 'ana');
    const stateOf = async (ip: string) =>
      ((await site.s.get('/clients')).body.clients as { addr: string; state: string }[]).find((c) => c.addr === ip)?.state;
    await eventually(async () => (await stateOf(working)) === 'WINS', 'the Windows PC in a session');
    const image = await site.s.post('/image/create', { clients: [ready], disk: '1', partition: '1', code: '131', id: '0', name: 'base' });
    assert.equal(image.status, 200, image.text);
    await eventually(
      async () => (await site.s.get('/images')).body.images.some((i: { name: string }) => i.name === 'base'),
      'the image stored',
    );

    const page = await browser.page();
    await signIn(page, site.url);
    await clientRow(page, working).locator('.state-WINS').waitFor();
    await groupRow(page, 'Lab 1').locator('input[type=checkbox]').check();
    await page.locator('[data-action=restore-image]').click();
    const dialog = page.locator('dialog');
    await dialog.locator('select[name=id] option', { hasText: 'base' }).waitFor({ state: 'attached' });
    assert.equal(await dialog.locator('[data-at-risk=session]').innerText(), `In a user session (1): ${working}`);
    assert.equal(await dialog.locator('[data-at-risk=off]').innerText(), `Switched off (1): ${off}`);
    await dialog.getByLabel(/I understand/).check();
    const restore = dialog.getByRole('button', { name: 'Restore image' });
    assert.ok(await restore.isDisabled(), 'understood is not enough while PCs are at risk');
    await screenshot(page, 'restore-at-risk');
    await dialog.getByLabel('Send to them anyway').check();
    await restore.click();
    assert.equal((await live.waitFor('image/restore')).body.name, 'base', 'sent once the admin said so');
  } finally {
    await site.close();
  }
});

test("image creation offers the PC's own repository first, not the first one listed", async () => {
  const site = await consoleSite(1);
  try {
    await site.connect(site.ips[0]!);
    const repositories = (await site.s.get('/repositories')).body.repositories as { id: number; name: string }[];
    const own = repositories.find((r) => r.name === 'main')!;
    assert.notEqual(repositories[0]!.id, own.id, 'the PC is not in the first repository');
    const page = await browser.page();
    await signIn(page, site.url);
    await clientRow(page, site.ips[0]!).locator('input[type=checkbox]').check();
    await page.locator('[data-action=create-image]').click();
    const select = page.locator('dialog select[name=repository_id]');
    await select.locator(`option[value="${own.id}"]`).waitFor({ state: 'attached' });
    await eventually(async () => (await select.inputValue()) === String(own.id), "the PC's repository chosen");
  } finally {
    await site.close();
  }
});

test.run();
