// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { type TestBrowser, launchBrowser } from '../support/browser';
import { clientRow, consolePlugins, consoleSite, signIn } from './site';

let browser: TestBrowser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after(async () => {
  await browser.close();
});

test('the dashboard warns of Secure Boot PCs set to an ogLive whose kernel is not signed; the number opens the fleet narrowed to them', async () => {
  const site = await consoleSite(3, { plugins: [...consolePlugins, 'tftp'], tftp: { ip: '127.0.0.1', port: 0 } });
  try {
    // An ogLive whose kernel is no signed PE file; two PCs of the room boot it.
    mkdirSync(path.join(site.s.dir, 'tftpboot', 'ogLive-unsigned'), { recursive: true });
    writeFileSync(path.join(site.s.dir, 'tftpboot', 'ogLive-unsigned', 'ogvmlinuz'), 'not a signed kernel');
    const [first, second, third] = site.ips as [string, string, string];
    assert.equal((await site.s.post('/live/set', { clients: [first, second], name: 'ogLive-unsigned' })).status, 200);
    const page = await browser.page();
    await signIn(page, site.url);
    await page.getByRole('link', { name: 'Dashboard', exact: true }).click();
    await page.locator('li[data-attention=dhcp], h2#dashboard-boots').first().waitFor();
    assert.equal(await page.locator('li[data-attention=unsigned-live]').count(), 0, 'no Secure Boot room: nothing said');

    assert.equal((await site.s.post('/tftp/secure-boot', { rooms: [site.room], secure_boot: true })).status, 200);
    // The third keeps iPXE (its ogLive, the default link, is not there either).
    assert.equal((await site.s.post('/tftp/secure-boot', { clients: [third], secure_boot: false })).status, 200);
    await page.reload();
    const line = page.locator('li[data-attention=unsigned-live]');
    await line.waitFor();
    assert.equal(await line.getAttribute('class'), 'warning');
    assert.equal(await line.innerText(), 'Secure Boot PCs set to an ogLive whose kernel is not signed (they stop at GRUB): 2');
    await line.getByRole('button', { name: '2' }).click();
    await clientRow(page, first).waitFor();
    assert.equal(await page.locator('li.row.computer').count(), 2, 'those two PCs');
  } finally {
    await site.close();
  }
});

test.run();
