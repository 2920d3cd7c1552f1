import assert from 'node:assert/strict';
import { existsSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { type TestBrowser, launchBrowser } from '../support/browser';
import { installedName, isoName, liveFiles, makeIso } from '../plugins/live/isos';
import { consoleSite, signIn } from './site';

let browser: TestBrowser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after(async () => {
  await browser.close();
});

test('live images: installed from an ISO of the server, made the default, removal refused naming the client that boots it, then removed', async () => {
  const site = await consoleSite(1);
  try {
    const ip = site.ips[0]!;
    const liveDir = path.join(site.s.dir, 'tftpboot');
    makeIso(path.join(site.s.dir, 'isos', isoName), liveFiles());
    const page = await browser.page();
    await signIn(page, site.url);
    await page.getByRole('link', { name: 'Live images', exact: true }).click();
    await page.getByLabel("ISO in the server's ISO folder").selectOption(isoName);
    await page.getByRole('button', { name: 'Install', exact: true }).click();
    await page.locator('[role=status]', { hasText: `Installed ${installedName}.` }).waitFor();
    const first = page.locator(`tr[data-live="${installedName}"]`);
    await first.locator('.tag', { hasText: 'default' }).waitFor();

    await page.getByLabel('Name (optional)').fill('ogLive-second');
    await page.getByRole('button', { name: 'Install', exact: true }).click();
    const second = page.locator('tr[data-live="ogLive-second"]');
    await second.waitFor();
    await page.getByRole('button', { name: 'Make default ogLive-second' }).click();
    await second.locator('.tag', { hasText: 'default' }).waitFor();
    assert.equal(readlinkSync(path.join(liveDir, 'ogLive')), 'ogLive-second', 'the link moved');

    assert.equal((await site.s.post('/live/set', { clients: [ip], name: installedName })).status, 200);
    await page.getByRole('button', { name: `Delete ${installedName}` }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: `${installedName} is the live image of pc01 (${ip}): give them another one first` })
      .waitFor();
    assert.ok(existsSync(path.join(liveDir, installedName)), 'refused: still installed');
    assert.equal((await site.s.post('/live/set', { clients: [ip], name: 'default' })).status, 200);
    await page.getByRole('button', { name: `Delete ${installedName}` }).click();
    await first.waitFor({ state: 'detached' });
    assert.ok(!existsSync(path.join(liveDir, installedName)), 'its folder is gone');
  } finally {
    await site.close();
  }
});

test.run();
