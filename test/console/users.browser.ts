import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { test } from 'uvu';
import { addUser, passwordOf } from '../plugins/auth/people';
import { type TestBrowser, launchBrowser, screenshot } from '../support/browser';
import { eventually } from '../support/fake-agent';
import { consoleSite, signInAs } from './site';

let browser: TestBrowser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after(async () => {
  await browser.close();
});

/** The error shown under a field of the add-user form. */
const fieldError = (page: Page, label: string) =>
  page.locator('form.add-user .field.invalid', { has: page.getByLabel(label, { exact: true }) }).locator('small.error');

test('an admin adds a user on the Users page (a refusal shown under its field), and that user signs in', async () => {
  const site = await consoleSite(0);
  try {
    await addUser(site.s, 'root', 'admin');
    const admin = await browser.page();
    await signInAs(admin, site.url, 'root', passwordOf('root'));
    // The main menu's: a site without PCs also links its Users page from the dashboard's first steps.
    await admin.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users', exact: true }).click();
    await admin.locator('tr[data-user=root]').waitFor();

    const form = admin.locator('form.add-user');
    await form.getByLabel('User name', { exact: true }).fill('bob');
    await form.getByLabel('Password', { exact: true }).fill('short');
    await form.getByLabel('Role', { exact: true }).selectOption('operator');
    await form.getByRole('button', { name: 'Add user' }).click();
    await fieldError(admin, 'Password').filter({ hasText: 'at least 12 characters' }).waitFor();

    await form.getByLabel('Password', { exact: true }).fill(passwordOf('bob'));
    // Centers and rooms by name, not typed ids.
    await form.getByLabel('School (whole center)').check();
    await form.getByRole('button', { name: 'Add user' }).click();
    await admin.locator('[role=status]', { hasText: 'User bob added.' }).waitFor();
    const row = admin.locator('tr[data-user=bob]');
    assert.deepEqual(
      (await row.locator('td').allTextContents()).slice(0, 5),
      ['bob', 'operator', 'School', 'no', 'active'],
      'the new user as GET /users lists them, their center by name',
    );
    await screenshot(admin, 'users');

    const bob = await browser.page();
    await signInAs(bob, site.url, 'bob', passwordOf('bob'));
    await bob.locator('header .who', { hasText: 'bob (operator)' }).waitFor();
    assert.equal(await bob.getByRole('link', { name: 'Users' }).count(), 0, 'no Users page for an operator');

    // Edited: another role, the shell right, one room instead of the center; their session ends.
    await row.getByRole('button', { name: 'Edit bob' }).click();
    const dialog = admin.locator('dialog');
    await dialog.getByLabel('Role', { exact: true }).selectOption('imager');
    await dialog.getByLabel('May run commands on PCs (shell)').check();
    await dialog.getByLabel('School (whole center)').uncheck();
    await dialog.getByLabel('Lab 1', { exact: true }).check();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await admin.locator('[role=status]', { hasText: 'User bob changed' }).waitFor();
    // The list is read again after the status says so: its row shows the edit a moment later.
    await row.locator('td', { hasText: 'imager' }).waitFor();
    assert.deepEqual((await row.locator('td').allTextContents()).slice(0, 4), ['bob', 'imager', 'Lab 1 (School)', 'yes'], 'as edited');
    const [stored] = (await site.s.get('/users')).body.users.filter((u: { username: string }) => u.username === 'bob');
    assert.deepEqual([stored.role, stored.shell, stored.centers, stored.rooms], ['imager', true, [], [site.room]]);
    await bob.reload();
    await bob.getByText('Signed out: your session has ended').waitFor();
    await signInAs(bob, site.url, 'bob', passwordOf('bob'));
    await bob.locator('header .who', { hasText: 'bob (imager)' }).waitFor();

    // The audit log says what changed, field by field (it writes its entries a second later or so).
    await eventually(async () => (await site.s.get('/audit?path=/users/update')).body.entries.length > 0, 'the update audited');
    await admin.getByRole('link', { name: 'Audit log', exact: true }).click();
    const entry = admin.locator('tr[data-audit]', { hasText: 'POST /users/update' });
    await entry.waitFor();
    const said = await entry.innerText();
    for (const line of ['role: operator → imager', 'shell: no → yes', `centers: ${site.center} → (none)`, `rooms: (none) → ${site.room}`])
      assert.ok(said.includes(line), `the audit log says ${line}: ${said}`);
    await admin
      .locator('tr[data-audit]', { hasText: 'user bob (added)' })
      .locator('[data-field=role]', { hasText: 'role: operator' })
      .waitFor();
  } finally {
    await site.close();
  }
});

test('on the Users page an admin disables a user (their session ends), enables them, sets their password and removes them', async () => {
  const site = await consoleSite(0);
  try {
    await addUser(site.s, 'root', 'admin');
    await addUser(site.s, 'bob', 'reader');
    const admin = await browser.page();
    await signInAs(admin, site.url, 'root', passwordOf('root'));
    // The main menu's: a site without PCs also links its Users page from the dashboard's first steps.
    await admin.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users', exact: true }).click();
    const row = admin.locator('tr[data-user=bob]');
    const bob = await browser.page();
    await signInAs(bob, site.url, 'bob', passwordOf('bob'));
    await bob.locator('header .who', { hasText: 'bob (reader)' }).waitFor();

    await row.getByRole('button', { name: 'Disable bob' }).click();
    await row.locator('td', { hasText: 'disabled' }).waitFor();
    await bob.reload();
    await bob.getByText('Signed out: your session has ended').waitFor();
    await signInAs(bob, site.url, 'bob', passwordOf('bob'));
    await bob.getByText("You may not sign in: the account 'bob' is disabled.").waitFor();

    await row.getByRole('button', { name: 'Enable bob' }).click();
    await row.locator('td', { hasText: 'active' }).waitFor();
    await row.getByRole('button', { name: 'Set password bob' }).click();
    const dialog = admin.locator('dialog');
    await dialog.getByLabel('New password').fill('a-brand-new-password');
    await dialog.getByRole('button', { name: 'Set password' }).click();
    await admin.locator('[role=status]', { hasText: 'Password of bob set.' }).waitFor();
    await signInAs(bob, site.url, 'bob', 'a-brand-new-password');
    await bob.locator('header .who', { hasText: 'bob (reader)' }).waitFor();

    await row.getByRole('button', { name: 'Remove bob' }).click();
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await row.waitFor({ state: 'detached' });
    const users = (await site.s.get('/users')).body.users.map((u: { username: string }) => u.username);
    assert.deepEqual(users, ['root'], 'bob is gone');
  } finally {
    await site.close();
  }
});

test.run();
