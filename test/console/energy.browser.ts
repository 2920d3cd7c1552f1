import 'reflect-metadata';
import assert from 'node:assert/strict';
import { container } from 'tsyringe';
import { test } from 'uvu';
import { ManualClock } from '../../testing';
import { EnergyClock } from '../../plugins/energy';
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

test('the Energy page lists per room the PCs on with nobody using them, hours in each state, and a chart by day', async () => {
  // The energy clock two hours behind the browser's: an hour later the server's now is still before the page's.
  const clock = new ManualClock(Date.now() - 2 * 3_600_000);
  const services = container.createChildContainer();
  services.register(EnergyClock, { useValue: clock });
  const site = await consoleSite(3, { plugins: [...consolePlugins, 'energy'] }, services);
  try {
    const [idle, used, off] = site.ips as [string, string, string];
    await site.connect(idle, { mode: 'windows' });
    const user = await site.connect(used, { mode: 'windows' });
    user.event('start', 'ana');
    await eventually(async () => {
      const rooms = (await site.s.get('/energy/now')).body.rooms;
      return rooms[0]?.counts.session === 1 && rooms[0].counts.idle === 1;
    }, 'one PC idle, one in a session');
    await clock.advance(3_600_000);

    const page = await browser.page();
    await signIn(page, site.url);
    await page.getByRole('link', { name: 'Energy' }).click();
    await page.locator('h1#energy-title').waitFor();
    const room = page.locator('li[data-room="Lab 1"]');
    await room.waitFor();
    assert.match(await room.innerText(), /1 idle, 1 in a session, 0 busy, 1 off/);
    assert.deepEqual(await room.locator('[data-idle]').evaluateAll((items) => items.map((i) => i.getAttribute('data-idle'))), [idle]);
    assert.equal(await page.locator(`[data-idle="${used}"], [data-idle="${off}"]`).count(), 0, 'neither the PC in use nor the one off');

    const row = page.locator('table[data-energy=rooms] tr[data-room="Lab 1"]');
    await row.waitFor();
    assert.deepEqual(
      await Promise.all(['idle', 'session', 'busy', 'off'].map((s) => row.locator(`[data-state=${s}]`).innerText())),
      ['1.0', '1.0', '0.0', '1.0'],
      'an hour of each PC since the clock started',
    );
    const bars = page.locator('figure svg g[data-day] rect[data-state=idle]');
    await bars.first().waitFor({ state: 'attached' });
    const heights = await bars.evaluateAll((rects) => rects.map((r) => Number(r.getAttribute('height'))));
    assert.ok(
      heights.some((h) => h > 0),
      'the day with idle hours has a bar',
    );
    assert.deepEqual(await seriousViolations(page), [], 'no serious accessibility violation');
    await screenshot(page, 'energy');

    // The dashboard counts the PCs on with nobody using them; the number opens the fleet narrowed to them.
    await page.getByRole('link', { name: 'Dashboard', exact: true }).click();
    const waste = page.locator('li[data-attention=idle]');
    await waste.getByRole('button', { name: '1' }).click();
    await page.getByRole('button', { name: 'PCs on with nobody using them ✕' }).waitFor();
    await clientRow(page, idle).waitFor();
    assert.equal(await page.locator('li.row.computer').count(), 1, 'that PC alone');
  } finally {
    await site.close();
  }
});

test.run();
