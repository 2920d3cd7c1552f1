import assert from 'node:assert/strict';
import { test } from 'uvu';
import { ManualClock } from '../../testing';
import { Scheduler, SchedulerClock } from '../../plugins/scheduler';
import { type TestBrowser, launchBrowser, screenshot, seriousViolations } from '../support/browser';
import { bulkClients, consoleSite, signIn } from './site';
// After the server's imports, which load the reflection tsyringe needs.
import { container } from 'tsyringe';

let browser: TestBrowser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after(async () => {
  await browser.close();
});

/** The first `weekday` (0 = Sunday, as Date counts) strictly after `from`, at 08:00 local time. */
function nextAt8(from: number, weekday: number): number {
  const date = new Date(from);
  date.setHours(8, 0, 0, 0);
  do date.setDate(date.getDate() + 1);
  while (date.getDay() !== weekday);
  return date.getTime();
}

/** The first Sunday 12:00 local time after `from`. */
function nextSundayNoon(from: number): number {
  const date = new Date(from);
  date.setHours(12, 0, 0, 0);
  while (date.getDay() !== 0 || date.getTime() <= from) date.setDate(date.getDate() + 1);
  return date.getTime();
}

test('a weekly schedule picked by name fires on its weekday and time on a manual clock; disabled, it does not fire', async () => {
  // The server's scheduler runs on a manual clock that starts next Sunday at noon, so that Monday
  // comes before Wednesday whatever day the test runs (the console writes 50 years from this one).
  const clock = new ManualClock(nextSundayNoon(Date.now()));
  const services = container.createChildContainer();
  services.register(SchedulerClock, { useValue: clock });
  const site = await consoleSite(2, {}, services);
  try {
    const scheduler = site.s.app.container.resolve(Scheduler);
    const procedure = await site.s.post('/procedure/add', { center: site.center, name: 'Inventory', steps: [{ command: 'hardware' }] });
    assert.equal(procedure.status, 200, procedure.text);
    const agent = await site.connect(site.ips[0]!);
    agent.on('run/schedule', { status: 200 }, true); // as the real agent answers it

    const page = await browser.page();
    await signIn(page, site.url);
    await page.getByRole('link', { name: 'Scheduler', exact: true }).click();
    const form = page.locator('form.schedule-form');
    await form.getByLabel('Runs').locator('option', { hasText: 'Inventory' }).waitFor({ state: 'attached' });
    await form.getByLabel('Name', { exact: true }).fill('Weekly inventory');
    await form.getByLabel('Runs').selectOption({ label: 'Inventory' });
    await form.getByLabel('On', { exact: true }).selectOption({ label: 'Lab 1 › pc01 (127.0.1.1)' });
    assert.equal(await form.getByLabel('Repeat').inputValue(), 'weekly', 'every week unless told');
    await form.getByLabel('Mon', { exact: true }).check();
    await form.getByLabel('Wed', { exact: true }).check();
    await form.getByLabel('Time').fill('08:00');
    await form.getByRole('button', { name: 'Create schedule' }).click();
    const row = page.locator('tr[data-schedule]', { hasText: 'Weekly inventory' });
    await row.locator('td', { hasText: 'Mon, Wed at 08:00' }).waitFor();
    await row.locator('td', { hasText: 'School › Lab 1 › pc01' }).waitFor();
    await row.locator('td', { hasText: /^Inventory$/ }).waitFor();

    const monday = nextAt8(clock.now(), 1);
    const wednesday = nextAt8(monday, 3);
    const [stored] = (await site.s.post('/schedule/get')).body.schedule;
    assert.deepEqual(
      [stored.type, stored.week_days, stored.months, stored.days, stored.hours, stored.am_pm, stored.minutes, stored.next],
      ['task', 0b101, 4095, 0, 1 << 8, 0, 0, monday],
      'Mondays and Wednesdays at 08:00 in the reference masks, next Monday first',
    );
    const [task] = (await site.s.get('/tasks')).body.tasks;
    const pc01 = (await site.s.get('/client/info', { client: [site.ips[0]] })).body.id;
    assert.deepEqual(
      [stored.task, task.name, task.scope, task.steps],
      [task.id, 'Weekly inventory', { type: 'client', id: pc01 }, [{ procedure: procedure.body.id }]],
      'the procedure runs through a task of the same name for pc01, as picked by name',
    );
    assert.deepEqual(await seriousViolations(page), [], 'the scheduler page passes axe-core with a schedule listed');
    await screenshot(page, 'scheduler-weekly');

    await clock.advanceTo(monday - 60_000);
    assert.equal((await scheduler.actions()).length, 0, 'nothing before Monday 08:00');
    await clock.advanceTo(monday);
    await agent.waitFor('hardware');
    assert.equal((await scheduler.actions()).length, 1, 'fired on Monday for pc01');

    await row.getByLabel('Enabled: Weekly inventory').uncheck();
    await page.getByText('Weekly inventory disabled').waitFor();
    assert.equal((await site.s.post('/schedule/get')).body.schedule[0].suspended, 1, 'suspended on the server');
    await clock.advanceTo(wednesday + 60_000);
    assert.equal((await scheduler.actions()).length, 1, 'disabled: nothing on Wednesday');
    assert.equal(agent.requests.filter((r) => r.path === 'hardware').length, 1, 'the agent was asked once');

    await row.getByLabel('Enabled: Weekly inventory').check();
    await page.getByText('Weekly inventory enabled').waitFor();
    const next = nextAt8(wednesday, 1);
    assert.equal((await site.s.post('/schedule/get')).body.schedule[0].next, next, 'enabled again: the Monday after');
    await clock.advanceTo(next);
    await agent.waitFor('hardware', 1);
  } finally {
    await site.close();
  }
});

test('in Spanish the form and the schedule read in Spanish; a weekly schedule without a day is refused under the days', async () => {
  const site = await consoleSite(1);
  try {
    const procedure = await site.s.post('/procedure/add', { center: site.center, name: 'Apagado', steps: [{ command: 'poweroff' }] });
    assert.equal(procedure.status, 200, procedure.text);
    const page = await browser.page({ locale: 'es-ES' });
    await signIn(page, site.url);
    await page.getByRole('link', { name: 'Planificador', exact: true }).click();
    const form = page.locator('form.schedule-form');
    await form.getByLabel('Ejecuta').locator('option', { hasText: 'Apagado' }).waitFor({ state: 'attached' });
    await form.getByLabel('Nombre', { exact: true }).fill('Apagado nocturno');
    await form.getByLabel('En', { exact: true }).selectOption({ label: 'School (todo el centro)' });
    await form.getByRole('button', { name: 'Crear programación' }).click();
    await form.getByText('Elija al menos un día.').waitFor();
    assert.equal((await site.s.post('/schedule/get')).body.schedule.length, 0, 'nothing written');
    await form.getByLabel('Vie', { exact: true }).check();
    await form.getByLabel('Hora').fill('21:30');
    await form.getByRole('button', { name: 'Crear programación' }).click();
    await page.locator('tr[data-schedule]', { hasText: 'Vie a las 21:30' }).waitFor();
    const [stored] = (await site.s.post('/schedule/get')).body.schedule;
    assert.deepEqual([stored.week_days, stored.hours, stored.am_pm, stored.minutes], [1 << 4, 1 << 9, 1, 30], 'Fridays at 21:30');
    assert.deepEqual(await seriousViolations(page), [], 'axe-core in Spanish with the error shown');
  } finally {
    await site.close();
  }
});

test('on a large fleet the schedule form lists centers and rooms by name and finds a PC by name or address instead of listing them all', async () => {
  const site = await consoleSite(1);
  try {
    await bulkClients(site, 300);
    await site.s.post('/procedure/add', { center: site.center, name: 'Inventory', steps: [{ command: 'hardware' }] });
    const page = await browser.page();
    await signIn(page, site.url);
    await page.getByRole('link', { name: 'Scheduler', exact: true }).click();
    const form = page.locator('form.schedule-form');
    await form.getByLabel('Runs').locator('option', { hasText: 'Inventory' }).waitFor({ state: 'attached' });
    await form.getByLabel('Runs').selectOption({ label: 'Inventory' });
    const on = form.getByLabel('On', { exact: true });
    await on.locator('option', { hasText: 'Room 003' }).waitFor({ state: 'attached' });
    const count = await on.locator('option').count();
    assert.ok(count < 20, `centers and rooms, not 301 PCs: ${count} options`);
    await form.getByLabel('Find a room or PC').fill('host00042');
    await on.locator('option', { hasText: 'host00042' }).waitFor({ state: 'attached' });
    await on.selectOption({ label: 'Room 001 › host00042 (10.0.4.18)' });
    await form.getByLabel('Find a room or PC').fill('');
    assert.equal(await on.inputValue(), 'computer:1042', 'the PC picked stays picked');
  } finally {
    await site.close();
  }
});

test.run();
