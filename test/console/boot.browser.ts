import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { type TestBrowser, launchBrowser, screenshot } from '../support/browser';
import { macFor } from '../support/fixtures';
import { pcGet } from '../plugins/boot/support';
import { clientRow, consoleSite, signIn } from './site';

let browser: TestBrowser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after(async () => {
  await browser.close();
});

test("the client page shows the PC's last network boot, stage by stage, as it goes", async () => {
  const site = await consoleSite(1);
  try {
    const ip = site.ips[0]!;
    const live = path.join(site.s.dir, 'tftpboot', 'ogLive');
    mkdirSync(live, { recursive: true });
    writeFileSync(path.join(live, 'ogvmlinuz'), Buffer.alloc(2048, 1));
    const page = await browser.page();
    await signIn(page, site.url);
    await clientRow(page, ip).getByRole('link').click();
    await page.getByText('No network boot seen yet.').waitFor();

    assert.equal((await pcGet(site.s.port, `/boot/ipxe?mac=${macFor(1)}`, { from: ip })).status, 200);
    assert.equal((await pcGet(site.s.port, `/boot/files/ogLive/ogvmlinuz?mac=${macFor(1)}`, { from: ip })).status, 200);
    await site.connect(ip);
    const stages = page.locator('.boot-timeline li');
    await page.locator('.boot-timeline li[data-stage=agent]').waitFor({ timeout: 15_000 });
    assert.deepEqual(await stages.evaluateAll((items) => items.map((li) => li.getAttribute('data-stage'))), ['script', 'kernel', 'agent']);
    assert.match(await stages.nth(1).innerText(), /^Kernel .* · 2 KiB in \d+\.\d s$/, 'the kernel, its size and how long it took');
    assert.match(await stages.nth(2).innerText(), /Agent up .*ogLive/, 'the agent came up in ogLive');
    await screenshot(page, 'client-last-boot');
  } finally {
    await site.close();
  }
});

test.run();
