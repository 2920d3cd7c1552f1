import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { type TestBrowser, launchBrowser, screenshot, seriousViolations } from '../support/browser';
import { eventually } from '../support/fake-agent';
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

test('the dashboard counts PCs by where their last boot stopped, each number opening the fleet narrowed to them; boot once into a mode', async () => {
  const site = await consoleSite(3);
  try {
    const [stuck, scripted, idle] = site.ips as [string, string, string];
    const live = path.join(site.s.dir, 'tftpboot', 'ogLive');
    mkdirSync(live, { recursive: true });
    writeFileSync(path.join(live, 'ogvmlinuz'), Buffer.alloc(2048, 1));
    assert.equal((await pcGet(site.s.port, `/boot/ipxe?mac=${macFor(1)}`, { from: stuck })).status, 200);
    assert.equal((await pcGet(site.s.port, `/boot/files/ogLive/ogvmlinuz?mac=${macFor(1)}`, { from: stuck })).status, 200);
    assert.equal((await pcGet(site.s.port, `/boot/ipxe?mac=${macFor(2)}`, { from: scripted })).status, 200);
    // The stages are recorded as each transfer ends: the dashboard is opened once both are.
    await eventually(async () => {
      const last = (await site.s.get('/boot/stages')).body.clients as { stage: string }[];
      return (
        last
          .map((c) => c.stage)
          .sort()
          .join() === 'kernel,script'
      );
    }, 'both boots recorded');

    const page = await browser.page();
    await signIn(page, site.url);
    await page.getByRole('link', { name: 'Dashboard', exact: true }).click();
    const boots = page.locator('section[aria-labelledby=dashboard-boots]');
    await boots.locator('button[data-boot=kernel]', { hasText: '1' }).waitFor();
    assert.equal(await boots.locator('button[data-boot=script]').innerText(), '1', 'one PC got its script and no further');
    assert.equal(await boots.locator('button[data-boot]').count(), 2, 'no other stage has a PC');
    assert.deepEqual(await seriousViolations(page), [], 'the dashboard passes axe-core');
    await boots.locator('button[data-boot=kernel]').click();
    await page.getByRole('button', { name: 'Last boot stopped at: Kernel ✕' }).waitFor();
    await clientRow(page, stuck).waitFor();
    assert.equal(await page.locator('li.row.computer').count(), 1, 'the fleet shows that PC alone');
    await page.getByRole('button', { name: 'Last boot stopped at: Kernel ✕' }).click();
    await clientRow(page, idle).waitFor();

    await clientRow(page, scripted).locator('input[type=checkbox]').check();
    await clientRow(page, idle).locator('input[type=checkbox]').check();
    await page.locator('[data-action=boot-once]').click();
    const dialog = page.locator('dialog');
    await dialog.getByLabel('Back to the previous mode when').selectOption('served');
    await dialog.getByLabel('At the latest after (minutes)').fill('30');
    await dialog.getByRole('button', { name: 'Boot once into…' }).click();
    await dialog.waitFor({ state: 'detached' });
    const pending = (await site.s.get('/boot/next')).body.pending as { client: string; revert: string; since: string; until: string }[];
    assert.deepEqual(pending.map((p) => [p.client, p.revert]).sort(), [
      [scripted, 'served'],
      [idle, 'served'],
    ]);
    assert.ok(
      pending.every((p) => Date.parse(p.until) - Date.parse(p.since) === 30 * 60_000),
      '30 minutes at the latest',
    );
  } finally {
    await site.close();
  }
});

test.run();
