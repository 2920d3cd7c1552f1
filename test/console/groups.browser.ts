import 'reflect-metadata';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { container } from 'tsyringe';
import { test } from 'uvu';
import { ManualClock } from '../../testing';
import { addUser, passwordOf } from '../plugins/auth/people';
import { PowerClock } from '../../plugins/power';
import { SchedulerClock } from '../../plugins/scheduler';
import { type TestBrowser, launchBrowser, screenshot, seriousViolations } from '../support/browser';
import { addClient, addRoom, macFor } from '../support/fixtures';
import { clientRow, consolePlugins, consoleSite, openFleet, signIn, signInAs } from './site';

let browser: TestBrowser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after(async () => {
  await browser.close();
});

const selectedCount = (page: Page) => page.locator('.selected-count');

test("the fleet's search saved as a group; picked later, the group selects its PCs of that moment (one added since too) to wake and to run a command on", async () => {
  const site = await consoleSite(3);
  try {
    const library = await addRoom(site.s, site.center, 'Library', '255.0.0.0');
    await addClient(site.s, library, '127.0.1.21', macFor(21), { name: 'lib01' });
    const page = await browser.page();
    await signIn(page, site.url);
    await page.getByPlaceholder('Search').fill('pc0');
    await page.getByText('3 matching clients').waitFor();
    await page.getByRole('button', { name: 'Save as group' }).click();
    const dialog = page.locator('dialog');
    await dialog.getByText('The group finds the PCs matching “pc0”.').waitFor();
    await dialog.getByLabel('Name', { exact: true }).fill('Lab PCs');
    assert.deepEqual(await seriousViolations(page), [], 'the save dialog passes axe-core');
    await dialog.getByRole('button', { name: 'Save group' }).click();
    await page.getByRole('status').getByText('Group “Lab PCs” saved: 3 PCs now.').waitFor();
    const [saved] = (await site.s.get('/groups')).body.groups;
    assert.deepEqual([saved.name, saved.filter], ['Lab PCs', { text: 'pc0' }], 'the search as the filter, not the PCs');

    // A PC added since is in the group when it is used.
    await addClient(site.s, site.room, '127.0.1.4', macFor(4), { name: 'pc04' });
    await page.reload();
    await clientRow(page, '127.0.1.4').waitFor();
    await page.getByLabel('Group', { exact: true }).selectOption({ label: 'Lab PCs (4 PCs)' });
    await page.getByRole('button', { name: 'Group Lab PCs ✕' }).waitFor();
    await selectedCount(page).filter({ hasText: '4 selected' }).waitFor();
    assert.equal(await clientRow(page, '127.0.1.21').count(), 0, 'the library PC is not shown');
    await screenshot(page, 'group-picked');
    assert.deepEqual(await seriousViolations(page), [], 'the fleet with a group picked passes axe-core');

    await page.locator('[data-action=wake]').click();
    await page.locator('dialog').getByRole('button', { name: 'Wake' }).click();
    const packets = await site.wol.waitFor(4);
    assert.deepEqual(
      packets.map((p) => p.data.subarray(6, 12).toString('hex')).sort(),
      [macFor(1), macFor(2), macFor(3), macFor(4)],
      "a magic packet for each of the group's PCs, the one added since among them",
    );

    const agent = await site.connect('127.0.1.4');
    agent.on('shell/run', (r) => ({ body: { cmd: r.body.run, out: 'hi\n', retcode: 0 } }));
    await page.locator('[data-action=shell]').click();
    await page.locator('dialog textarea[name=run]').fill('echo hi');
    await page.locator('dialog').getByRole('button', { name: 'Run command' }).click();
    assert.equal((await agent.waitFor('shell/run')).body.run, 'echo hi', "the command reached the group's new PC");
  } finally {
    await site.close();
  }
});

/** The first Sunday 12:00 local time after `from`. */
function nextSundayNoon(from: number): number {
  const date = new Date(from);
  date.setHours(12, 0, 0, 0);
  while (date.getDay() !== 0 || date.getTime() <= from) date.setDate(date.getDate() + 1);
  return date.getTime();
}

test("a schedule and a power calendar take a saved group as their target, by name; the schedule fires on the group's PCs of the moment it fires", async () => {
  const clock = new ManualClock(nextSundayNoon(Date.now()));
  const services = container.createChildContainer();
  services.register(SchedulerClock, { useValue: clock });
  services.register(PowerClock, { useValue: clock });
  const site = await consoleSite(2, { plugins: [...consolePlugins, 'power'] }, services);
  try {
    const group = await site.s.post('/groups', { name: 'Lab 1 PCs', filter: { within: { type: 'room', id: site.room } } });
    assert.equal(group.status, 200, group.text);
    const procedure = await site.s.post('/procedure/add', { center: site.center, name: 'Inventory', steps: [{ command: 'hardware' }] });
    assert.equal(procedure.status, 200, procedure.text);

    const page = await browser.page();
    await signIn(page, site.url);
    await page.getByRole('link', { name: 'Scheduler', exact: true }).click();
    const form = page.locator('form.schedule-form');
    await form.getByLabel('Runs').locator('option', { hasText: 'Inventory' }).waitFor({ state: 'attached' });
    await form.getByLabel('Name', { exact: true }).fill('Monday inventory');
    await form.getByLabel('Runs').selectOption({ label: 'Inventory' });
    await form
      .getByLabel('On', { exact: true })
      .locator('optgroup[label="Saved groups"] option', { hasText: 'Lab 1 PCs' })
      .waitFor({ state: 'attached' });
    await form.getByLabel('On', { exact: true }).selectOption({ label: 'Lab 1 PCs' });
    await form.getByLabel('Mon', { exact: true }).check();
    await form.getByLabel('Time').fill('08:00');
    await form.getByRole('button', { name: 'Create schedule' }).click();
    const row = page.locator('tr[data-schedule]', { hasText: 'Monday inventory' });
    await row.locator('td', { hasText: /^Lab 1 PCs$/ }).waitFor();
    const task = (await site.s.get('/tasks')).body.tasks.find((t: { name: string }) => t.name === 'Monday inventory');
    assert.deepEqual(task.scope, { type: 'group', id: group.body.id }, "the task's scope is the group, not its PCs");
    assert.deepEqual(await seriousViolations(page), [], 'the scheduler page passes axe-core');

    // A PC added to the room after the schedule was made is inventoried when it fires.
    await addClient(site.s, site.room, '127.0.1.3', macFor(3), { name: 'pc03' });
    const agent = await site.connect('127.0.1.3');
    agent.on('run/schedule', { status: 200 }, true);
    const [stored] = (await site.s.post('/schedule/get')).body.schedule;
    await clock.advanceTo(stored.next);
    await agent.waitFor('hardware');

    await page.getByRole('link', { name: 'Power', exact: true }).click();
    await page.getByRole('button', { name: 'New calendar' }).click();
    const editor = page.locator('form.power-editor');
    await editor.getByLabel('Calendar of', { exact: true }).selectOption({ label: 'Lab 1 PCs' });
    await editor.getByLabel('Tuesday: Power on').fill('07:45');
    await editor.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();
    const [calendar] = (await site.s.get('/power/calendars')).body.calendars;
    assert.deepEqual(calendar.target, { type: 'group', id: group.body.id }, 'the calendar targets the group');
    const listed = page.locator(`tr[data-calendar="${calendar.id}"] td[data-target]`);
    assert.equal(await listed.innerText(), 'Lab 1 PCs', 'listed by the group name');
    const preview = page.locator('table.power-preview tbody tr');
    await preview.first().waitFor();
    assert.match((await preview.allInnerTexts())[0]!, /Power on\t3$/, "the group's three PCs now");
    await screenshot(page, 'power-group');
    assert.deepEqual(await seriousViolations(page), [], 'the power page passes axe-core');
  } finally {
    await site.close();
  }
});

test("saved groups listed in words with their PCs now; an admin renames one, gives it the fleet's search, deletes one, and is told which schedule keeps another; others only read the list", async () => {
  const site = await consoleSite(3);
  try {
    const lab = await site.s.post('/groups', { name: 'Lab', filter: { within: { type: 'room', id: site.room } } });
    const old = await site.s.post('/groups', { name: 'Old PCs', filter: { text: 'pc01' } });
    const procedure = await site.s.post('/procedure/add', { center: site.center, name: 'Inventory', steps: [{ command: 'hardware' }] });
    const task = await site.s.post('/task/add', {
      center: site.center,
      name: 'Nightly',
      steps: [{ procedure: procedure.body.id }],
      scope: { type: 'group', id: lab.body.id },
    });
    const schedule = await site.s.post('/schedule/create', { task: task.body.id, name: 'Every night', type: 'task' });
    assert.deepEqual([lab.status, old.status, schedule.status], [200, 200, 200], schedule.text);

    const page = await browser.page();
    await signIn(page, site.url);
    await clientRow(page, '127.0.1.1').waitFor();
    await page.getByRole('button', { name: 'Saved groups…' }).click();
    const dialog = page.locator('dialog');
    const row = (id: number) => dialog.locator(`tr[data-group="${id}"]`);
    await row(lab.body.id).waitFor();
    assert.deepEqual(
      await row(old.body.id).locator('td').allInnerTexts(),
      ['Old PCs', 'The group finds the PCs matching “pc01”.', '1', 'Rename\nDelete'],
      'name, filter in words, PCs now; no fleet filter to give it yet',
    );
    assert.match(await row(lab.body.id).locator('td').nth(1).innerText(), /^The group finds the PCs in .+\.$/);
    await screenshot(page, 'saved-groups');
    assert.deepEqual(await seriousViolations(page), [], 'the saved groups pass axe-core');

    await row(old.body.id).getByRole('button', { name: 'Rename' }).click();
    await dialog.getByLabel('Name', { exact: true }).fill('First PC');
    await dialog.getByRole('button', { name: 'Rename' }).click();
    await dialog.getByRole('status').getByText('Group “Old PCs” renamed “First PC”.').waitFor();
    await row(old.body.id)
      .locator('td', { hasText: /^First PC$/ })
      .waitFor();
    assert.deepEqual((await site.s.get(`/groups/${old.body.id}`)).body.filter, { text: 'pc01' }, 'renamed, its filter kept');

    // The lab's group is the target of a schedule: refused, and told which.
    await row(lab.body.id).getByRole('button', { name: 'Delete' }).click();
    await dialog.getByText('Delete the group “Lab”?', { exact: false }).waitFor();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await dialog
      .getByRole('alert')
      .getByText(`The group is in use by schedule 'Every night' (${schedule.body.id}, task 'Nightly'): change or delete them first.`)
      .waitFor();
    await screenshot(page, 'group-in-use');
    assert.deepEqual(await seriousViolations(page), [], 'the refusal passes axe-core');
    assert.equal((await site.s.get(`/groups/${lab.body.id}`)).status, 200, 'still there');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    await row(old.body.id).getByRole('button', { name: 'Delete' }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await dialog.getByRole('status').getByText('Group “First PC” deleted.').waitFor();
    assert.equal(await row(old.body.id).count(), 0, 'gone from the list');
    assert.equal((await site.s.get(`/groups/${old.body.id}`)).status, 404, 'and from the server');
    await dialog.getByRole('button', { name: 'Close' }).click();

    // The fleet's search becomes the lab group's filter.
    await page.getByPlaceholder('Search').fill('pc02');
    await page.getByText('1 matching client').waitFor();
    await page.getByRole('button', { name: 'Saved groups…' }).click();
    await row(lab.body.id).getByRole('button', { name: "Use the fleet's filter" }).click();
    await dialog.getByText('Then: The group finds the PCs matching “pc02”.').waitFor();
    await dialog.getByRole('button', { name: 'Replace filter' }).click();
    await dialog.getByRole('status').getByText('Group “Lab” now finds 1 PC.').waitFor();
    assert.deepEqual((await site.s.get(`/groups/${lab.body.id}`)).body.clients, ['127.0.1.2']);

    // An operator (reading Spanish) reads the list, with nothing to change.
    await addUser(site.s, 'ana', 'operator');
    const other = await browser.page({ locale: 'es-ES' });
    await signInAs(other, site.url, 'ana', passwordOf('ana'));
    await openFleet(other);
    await other.getByRole('button', { name: 'Grupos guardados…' }).click();
    await other.locator(`dialog tr[data-group="${lab.body.id}"]`).waitFor();
    assert.deepEqual(
      await other.locator(`dialog tr[data-group="${lab.body.id}"] td`).allInnerTexts(),
      ['Lab', 'El grupo reúne los equipos que coinciden con «pc02».', '1'],
      'in Spanish, and no admin controls',
    );
    assert.deepEqual(await seriousViolations(other), [], "the operator's list passes axe-core");
  } finally {
    await site.close();
  }
});

test.run();
