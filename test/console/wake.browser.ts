// Engine-independent: runs once, on SQLite.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { container as rootContainer } from 'tsyringe';
import { test } from 'uvu';
import { ManualClock } from '../../testing';
import { WolClock } from '../../plugins/wol';
import { type TestBrowser, launchBrowser, screenshot } from '../support/browser';
import { clientRow, consoleSite, signIn } from './site';

let browser: TestBrowser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after(async () => {
  await browser.close();
});

test('the fleet marks a client that did not wake, says why on hover, and drops the mark once its agent connects', async () => {
  // The wake runs' checks (wol.verify_s, 300 s by default) run when the test moves this clock.
  const clock = new ManualClock(Date.now());
  const services = rootContainer.createChildContainer();
  services.register(WolClock, { useValue: clock });
  const site = await consoleSite(2, {}, services);
  try {
    const page = await browser.page();
    await signIn(page, site.url);
    const [silent, other] = site.ips as [string, string];
    await clientRow(page, silent).waitFor();
    assert.equal((await site.s.post('/wol', { clients: [silent], type: 'broadcast' })).body.run, 1);
    await clock.advance(300_000);
    const mark = clientRow(page, silent).locator('.wake-failed');
    await mark.waitFor();
    assert.equal(await mark.textContent(), 'Did not wake');
    assert.match((await mark.getAttribute('title')) ?? '', /no agent was ever seen/, 'the reason, on hover');
    assert.equal(await clientRow(page, other).locator('.wake-failed').count(), 0, 'not on a client that was not woken');
    await screenshot(page, 'wake-failed');
    // The dashboard counts it; the number opens the fleet narrowed to it.
    await page.getByRole('link', { name: 'Dashboard', exact: true }).click();
    await page.locator('li[data-attention=not-woken]').getByRole('button', { name: '1' }).click();
    await page.getByRole('button', { name: 'PCs that did not wake ✕' }).waitFor();
    await clientRow(page, silent).waitFor();
    assert.equal(await page.locator('li.row.computer').count(), 1, 'that PC alone');
    await page.getByRole('button', { name: 'PCs that did not wake ✕' }).click();
    await clientRow(page, other).waitFor();
    await site.connect(silent);
    await mark.waitFor({ state: 'detached' });
  } finally {
    await site.close();
  }
});

test.run();
