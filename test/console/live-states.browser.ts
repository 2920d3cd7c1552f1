import assert from 'node:assert/strict';
import { test } from 'uvu';
import { type TestBrowser, launchBrowser } from '../support/browser';
import { eventually } from '../support/fake-agent';
import { clientRow, consolePlugins, consoleSite, openFleet, signIn } from './site';

let browser: TestBrowser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after(async () => {
  await browser.close();
});

test("the live view patches each row from the stream's events: states, a command's result and a client leaving show without another GET /clients", async () => {
  const site = await consoleSite(3, { plugins: [...consolePlugins, 'events'] });
  try {
    const page = await browser.page();
    let reads = 0;
    page.on('request', (r) => {
      if (r.method() === 'GET' && new URL(r.url()).pathname === '/clients') reads++;
    });
    await signIn(page, site.url);
    await openFleet(page);
    await page.locator('.live', { hasText: /^Live$/ }).waitFor();
    // Read at the start and as the stream opened; from then on the events alone.
    await eventually(async () => reads >= 1, 'GET /clients read once the fleet opened');
    await page.waitForTimeout(1000);
    const before = reads;
    const [a, b, c] = site.ips as [string, string, string];
    for (const ip of site.ips) await clientRow(page, ip).locator('.state-off').waitFor();

    // a and c run Linux; b the live system, whose refresh at connect ends in a stored result.
    const linux = await Promise.all([a, c].map((ip) => site.connect(ip, { mode: 'linux' })));
    await site.connect(b);
    for (const ip of [a, c]) await clientRow(page, ip).locator('.state-LNX').waitFor({ timeout: 5000 });
    await clientRow(page, b).locator('.state-OPG').waitFor({ timeout: 5000 });
    await clientRow(page, b).locator('.result-success').waitFor({ timeout: 5000 });
    linux[0]!.event('start', 'alice');
    await clientRow(page, a).locator('.state-LNXS').waitFor({ timeout: 5000 });
    linux[1]!.destroy();
    await clientRow(page, c).locator('.state-off').waitFor({ timeout: 5000 });

    assert.equal(reads, before, 'every change came from the stream: no GET /clients after it opened');
    assert.equal(await page.locator('.live').textContent(), 'Live', 'still the stream, not polling');
  } finally {
    await site.close();
  }
});

test.run();
