import 'reflect-metadata';
import assert from 'node:assert/strict';
import { container } from 'tsyringe';
import { test } from 'uvu';
import { ManualClock } from '../../testing';
import { PowerClock } from '../../plugins/power';
import { type TestBrowser, launchBrowser, screenshot, seriousViolations } from '../support/browser';
import { eventually } from '../support/fake-agent';
import { clientRow, consolePlugins, consoleSite, signIn } from './site';

let browser: TestBrowser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after(async () => {
  await browser.close();
});

test('a job page says what ran, where and who asked: a power calendar by name, a command by its text, PCs by name; a wake links to its job', async () => {
  // Monday 2 November 2026, 12:00 on the power clock (the site's zone: the host's).
  const clock = new ManualClock(Date.parse('2026-11-02T12:00:00Z'));
  const services = container.createChildContainer();
  services.register(PowerClock, { useValue: clock });
  const site = await consoleSite(3, { plugins: [...consolePlugins, 'power'] }, services);
  try {
    const [pc01, pc02, pc03] = site.ips as [string, string, string];
    await site.connect(pc01);
    await site.connect(pc02);
    const fired: { job?: number }[] = [];
    site.s.app.events.on('test', 'power.calendar.fired', (event) => void fired.push(event));
    const local = new Date(clock.now() + 60 * 60_000);
    const off = `${String(local.getHours()).padStart(2, '0')}:${String(local.getMinutes()).padStart(2, '0')}`;
    const calendar = await site.s.post('/power/calendars', { target: { type: 'room', id: site.room }, week: { mon: { off } } });
    assert.equal(calendar.status, 200, calendar.text);
    await clock.advance(60 * 60_000);
    const job = (await eventually(async () => fired[0]?.job, 'the calendar powered the room off'))!;

    const page = await browser.page();
    await signIn(page, site.url);
    await page.goto(`${site.url}/console/#/job/${job}`);
    await page.locator('h1', { hasText: `Job ${job}: Power off` }).waitFor();
    assert.equal(await page.locator('dd[data-who]').innerText(), 'the power calendar of Lab 1', 'the asker, by name');
    assert.equal(await page.locator('dd[data-where]').innerText(), 'Lab 1 (School): 2 PCs', 'the room, by name');
    await page.locator(`tr[data-ip="${pc01}"] a`, { hasText: `pc01 (${pc01})` }).waitFor();
    await page.locator(`tr[data-ip="${pc02}"] a`, { hasText: `pc02 (${pc02})` }).waitFor();
    await screenshot(page, 'job-calendar');

    // A command: its text, and the API key that asked (pc02 up again after the calendar's power-off).
    const second = await site.connect(pc02);
    second.on('shell/run', (r) => ({ body: { cmd: r.body.run, out: 'Linux pc02\n', retcode: 0 } }));
    const shell = await site.s.post('/shell/run', { clients: [pc02], run: 'uname -a' });
    assert.equal(shell.status, 200, shell.text);
    await page.goto(`${site.url}/console/#/job/${shell.body.job}`);
    await page.locator('h1', { hasText: `Job ${shell.body.job}: Run command` }).waitFor();
    assert.equal(await page.locator('dd[data-what]').innerText(), 'Command: uname -a');
    assert.equal(await page.locator('dd[data-who]').innerText(), 'the API key (api_token)');
    await page.locator(`tr[data-ip="${pc02}"][data-state=done]`).waitFor();
    assert.deepEqual(await seriousViolations(page), [], 'the job page passes axe-core');

    // A wake: its report links to the job of its wake run.
    await page.locator('header nav').getByRole('link', { name: 'Fleet', exact: true }).click();
    await clientRow(page, pc03).locator('input[type=checkbox]').check();
    await page.locator('[data-action=wake]').click();
    await page.locator('dialog').getByRole('button', { name: 'Wake', exact: true }).click();
    const link = page.locator('details.run').first().locator('a.job-link');
    await link.waitFor();
    await link.click();
    await page.locator('h1', { hasText: ': Wake' }).waitFor();
    assert.match(await page.locator('dd[data-what]').innerText(), /^Wake run \d+, broadcast packets$/);
    assert.equal(await page.locator('dd[data-who]').innerText(), 'the API key (api_token)');
  } finally {
    await site.close();
  }
});

test.run();
