import 'reflect-metadata';
import assert from 'node:assert/strict';
import { container } from 'tsyringe';
import { test } from 'uvu';
import { ManualClock } from '../../testing';
import { PowerClock } from '../../plugins/power';
import { type TestBrowser, launchBrowser, screenshot, seriousViolations } from '../support/browser';
import { consolePlugins, consoleSite, signIn } from './site';

let browser: TestBrowser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after(async () => {
  await browser.close();
});

test('Power page: a calendar made in the weekday grid with a holiday, refusals shown at their field, the next week previewed, edited and deleted', async () => {
  const services = container.createChildContainer();
  // Friday 2027-03-26, noon UTC: the next Monday is after the spring-forward change.
  services.register(PowerClock, { useValue: new ManualClock(Date.parse('2027-03-26T12:00:00Z')) });
  const site = await consoleSite(2, { plugins: [...consolePlugins, 'power'], power: { time_zone: 'Europe/Madrid' } }, services);
  try {
    const page = await browser.page();
    await signIn(page, site.url);
    await page.getByRole('link', { name: 'Power', exact: true }).click();
    await page.locator('h1#power-title').waitFor();
    await page.locator('.zone-note', { hasText: /^Times are in Europe\/Madrid: power.time_zone overrides the site's time zone/ }).waitFor();
    await page.getByText('No power calendar yet.').waitFor();

    await page.getByRole('button', { name: 'New calendar' }).click();
    const form = page.locator('form.power-editor');
    // Its target picked by name; none picked yet.
    await form.getByLabel('Monday: Power on').fill('07:45');
    await form.getByLabel('Friday: Power off').fill('15:00');
    await form.getByRole('button', { name: 'Add holiday' }).click();
    await form.getByLabel('From', { exact: true }).fill('2027-04-02');
    await form.getByLabel('To', { exact: true }).fill('2027-04-01');
    await form.getByLabel('Label', { exact: true }).fill('Easter');
    // Each refusal is shown under the field the server names: the target (none picked), then the range.
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByLabel('Calendar of', { exact: true }).and(page.locator('[aria-invalid=true]')).waitFor();
    await form.getByLabel('Calendar of', { exact: true }).selectOption({ label: 'Lab 1' });
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByLabel('To', { exact: true }).and(page.locator('[aria-invalid=true]')).waitFor();
    await form.getByLabel('To', { exact: true }).fill('2027-04-05');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();

    const stored = (await site.s.get('/power/calendars')).body.calendars;
    assert.deepEqual(stored, [
      {
        id: stored[0].id,
        target: { type: 'room', id: site.room },
        week: { mon: { on: '07:45' }, fri: { off: '15:00' } },
        holidays: [{ from: '2027-04-02', to: '2027-04-05', label: 'Easter' }],
        force_off: false,
      },
    ]);
    const row = page.locator(`tr[data-calendar="${stored[0].id}"]`);
    await row.getByText('↑ 07:45').waitFor();
    assert.equal(await row.locator('td[data-target]').innerText(), 'Lab 1 (School)', 'the target by name');
    // The week ahead: this Friday's power-off (15:00 local, after noon UTC), Monday's power-on in summer time.
    const preview = page.locator('table.power-preview tbody tr');
    await preview.first().waitFor();
    assert.deepEqual(await preview.allInnerTexts(), ['2027-03-26 15:00\tPower off\t2', '2027-03-29 07:45\tPower on\t2']);
    await screenshot(page, 'power');
    assert.deepEqual(await seriousViolations(page), [], 'no serious or critical violation');

    await row.getByRole('button', { name: 'Edit' }).click();
    await form.getByLabel('Power off PCs with a user session or a running command too').check();
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();
    assert.equal((await site.s.get(`/power/calendars/${stored[0].id}`)).body.force_off, true, 'force_off saved');

    await form.getByRole('button', { name: 'Delete calendar' }).click();
    await page.getByText('No power calendar yet.').waitFor();
    assert.deepEqual((await site.s.get('/power/calendars')).body.calendars, [], 'deleted');
  } finally {
    await site.close();
  }
});

test.run();
