import 'reflect-metadata';
import assert from 'node:assert/strict';
import { container } from 'tsyringe';
import { test } from 'uvu';
import { ManualClock } from '../../testing';
import { PowerClock } from '../../plugins/power';
import { Scheduler, SchedulerClock } from '../../plugins/scheduler';
import { type TestBrowser, launchBrowser, screenshot } from '../support/browser';
import { eventually } from '../support/fake-agent';
import { consolePlugins, consoleSite, signIn } from './site';

let browser: TestBrowser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after(async () => {
  await browser.close();
});

/** A zone unlike the host's (and the browser's), with daylight saving of its own. */
const zone = Intl.DateTimeFormat().resolvedOptions().timeZone === 'Pacific/Auckland' ? 'America/New_York' : 'Pacific/Auckland';
const hhmm = (at: number) => new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit' }).format(at);

test("one clock: under a site zone unlike the host's, a schedule and a power calendar both set to 07:45 in the console fire at the same instant, 07:45 there", async () => {
  // Both clocks start now (the console writes a weekly schedule's years from this year on).
  const now = Date.now();
  const schedulerClock = new ManualClock(now);
  const powerClock = new ManualClock(now);
  const services = container.createChildContainer();
  services.register(SchedulerClock, { useValue: schedulerClock });
  services.register(PowerClock, { useValue: powerClock });
  const site = await consoleSite(2, { plugins: [...consolePlugins, 'power'], site: { time_zone: zone } }, services);
  try {
    const fired: { at: string }[] = [];
    site.s.app.events.on('test', 'power.calendar.fired', (event) => void fired.push(event));
    const procedure = await site.s.post('/procedure/add', { center: site.center, name: 'Inventory', steps: [{ command: 'hardware' }] });
    assert.equal(procedure.status, 200, procedure.text);
    const agent = await site.connect(site.ips[0]!);
    agent.on('run/schedule', { status: 200 }, true);

    const page = await browser.page();
    await signIn(page, site.url);
    await page.locator(`header .site-zone[data-zone="${zone}"]`, { hasText: `Site time: ${zone}` }).waitFor();

    // A weekly schedule, every day at 07:45: the form says which clock that is.
    await page.getByRole('link', { name: 'Scheduler', exact: true }).click();
    const form = page.locator('form.schedule-form');
    await form.getByLabel('Runs').locator('option', { hasText: 'Inventory' }).waitFor({ state: 'attached' });
    await form.getByText(`Times are in ${zone}, the site's time zone.`).waitFor();
    await form.getByLabel('Name', { exact: true }).fill('Morning inventory');
    await form.getByLabel('Runs').selectOption({ label: 'Inventory' });
    await form.getByLabel('On', { exact: true }).selectOption({ label: 'Lab 1 › pc01 (127.0.1.1)' });
    for (const day of ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']) await form.getByLabel(day, { exact: true }).check();
    await form.getByLabel('Time').fill('07:45');
    await form.getByRole('button', { name: 'Create schedule' }).click();
    const row = page.locator('tr[data-schedule]', { hasText: 'Morning inventory' });
    await row.waitFor();
    const [stored] = (await site.s.post('/schedule/get')).body.schedule;
    const next = stored.next as number;
    assert.equal(hhmm(next), '07:45', `the schedule's next time is 07:45 in ${zone}`);
    assert.match(await row.innerText(), /\b7:45:00\sAM/, 'listed on the site clock');

    // A power calendar for the room, every day at 07:45: the same clock, said the same way.
    await page.getByRole('link', { name: 'Power', exact: true }).click();
    await page
      .locator('.zone-note', { hasText: `Times are in ${zone}, the site's time zone.` })
      .first()
      .waitFor();
    await page.getByRole('button', { name: 'New calendar' }).click();
    const editor = page.locator('form.power-editor');
    await editor.getByLabel('Calendar of', { exact: true }).selectOption({ label: 'Lab 1' });
    for (const day of ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'])
      await editor.getByLabel(`${day}: Power on`).fill('07:45');
    await editor.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();
    const first = page.locator('table.power-preview tbody tr').first();
    await first.waitFor();
    assert.match(await first.innerText(), /07:45\tPower on/, 'the calendar previews 07:45');
    const [planned] = (await site.s.get('/power/calendar/preview?days=2')).body.actions;
    assert.equal(Date.parse(planned.at), next, 'the calendar and the schedule agree on the instant');
    await screenshot(page, 'power-site-zone');

    // Neither fires a minute early; both fire at that instant.
    const scheduler = site.s.app.container.resolve(Scheduler);
    await Promise.all([schedulerClock.advanceTo(next - 60_000), powerClock.advanceTo(next - 60_000)]);
    assert.equal((await scheduler.actions()).length, 0, 'the schedule waits');
    assert.equal(fired.length, 0, 'the calendar waits');
    await Promise.all([schedulerClock.advanceTo(next), powerClock.advanceTo(next)]);
    await agent.waitFor('hardware');
    await eventually(async () => fired.length > 0, 'the calendar fired');
    assert.equal(Date.parse(fired[0]!.at), next, 'at the same instant');
  } finally {
    await site.close();
  }
});

test.run();
