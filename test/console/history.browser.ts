import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import { type TestBrowser, launchBrowser, screenshot, seriousViolations } from '../support/browser';
import { type FakeAgent, eventually } from '../support/fake-agent';
import { consolePlugins, consoleSite, signIn } from './site';

let browser: TestBrowser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after(async () => {
  await browser.close();
});

const bank = (slot: string) => `mem=Kingston 9905678-031.A00G 8GiB 2400MHz (${slot})`;
const hardware = (...lines: string[]) =>
  `boo=UEFI\ncpu=Intel Corp. Intel(R) Core(TM) i5-6500 CPU @ 3.20GHz 3200MHz v.6.94.3\n${lines.join('\n')}\ndis=Samsung SSD 860 EVO 500GB 465GiB v.RVT0\n`;

/** Make the agent report `text` and wait until the client's history has `rows` changes. */
async function report(
  site: Awaited<ReturnType<typeof consoleSite>>,
  agent: FakeAgent,
  ip: string,
  path: string,
  text: string,
  rows: number,
) {
  if (path === 'hardware') agent.on('hardware', { body: { hardware: text } });
  else agent.on('software', (r) => ({ body: { partition: r.body?.partition, software: text } }));
  const body = path === 'hardware' ? { clients: [ip] } : { clients: [ip], disk: '1', partition: '2' };
  assert.equal((await site.s.post(`/${path}`, body)).status, 200);
  await eventually(async () => (await site.s.get(`/client/history?client=${ip}`)).body.changes.length === rows, `${rows} changes`);
  await eventually(async () => (await site.s.get('/clients')).body.clients.every((c: { state: string }) => c.state !== 'BSY'), 'idle');
}

test("a client's History tab shows what changed, newest first, with its alerts; the Hardware and Software pages show the reports and download their CSV", async () => {
  const site = await consoleSite(2, { plugins: [...consolePlugins, 'history'] });
  try {
    const [ip, other] = site.ips as [string, string];
    const agent = await site.connect(ip);
    const second = await site.connect(other);
    await report(site, agent, ip, 'hardware', hardware(bank('DIMM0'), bank('DIMM1')), 0);
    await report(site, agent, ip, 'hardware', hardware(bank('DIMM0')), 1);
    await report(site, agent, ip, 'software', 'Ubuntu 22.04.4 LTS\nfirefox 115.0\nvlc 3.0.16\n', 1);
    await report(site, agent, ip, 'software', 'Ubuntu 22.04.4 LTS\nfirefox 128.0\n', 3);
    await report(site, second, other, 'hardware', hardware(bank('DIMM0')), 0);
    await report(site, second, other, 'software', 'Ubuntu 22.04.4 LTS\nfirefox 115.0\n', 0);

    const page = await browser.page();
    await signIn(page, site.url);
    await page.goto(`${site.url}/console/#/client/${ip}`);
    await page.getByRole('link', { name: 'History', exact: true }).click();
    const rows = page.locator('tr[data-change]');
    await eventually(async () => (await rows.count()) === 3, 'three changes');
    const texts = await rows.allTextContents();
    assert.match(texts[0]!, /vlc \(disk 1, partition 2\)removed3\.0\.16—/, 'newest first');
    assert.match(texts[1]!, /firefox \(disk 1, partition 2\)updated115\.0128\.0/);
    assert.match(
      texts[2]!,
      /Memoryremoved.*\(DIMM1\)—memory_decreased, component_removed/,
      'the type as GET /hardware names it, and the alerts',
    );
    assert.equal(await page.locator('tr.alert[data-change]').count(), 1, 'the change with an alert stands out');
    assert.deepEqual(await seriousViolations(page), [], 'the History tab passes axe-core');
    await screenshot(page, 'client-history');
    await page.getByLabel('Kind').selectOption('hardware');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await eventually(async () => (await rows.count()) === 1, 'hardware only');
    await page.getByLabel('From', { exact: true }).fill('yesterday');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.locator('.field.invalid small.error', { hasText: 'From must be a date, such as 2026-03-01' }).waitFor();

    await page.getByRole('link', { name: 'Hardware', exact: true }).click();
    const caption = page.locator('table.report caption').first();
    await caption.waitFor();
    assert.match((await caption.textContent()) ?? '', /^School · 2 of 2 PCs reported their hardware$/);
    assert.match((await page.locator('table.report').first().textContent()) ?? '', /Memory8 GiB2/);
    assert.deepEqual(await seriousViolations(page), [], 'the Hardware page passes axe-core');
    await screenshot(page, 'report-hardware');
    await page.getByLabel('Count by').selectOption('room');
    await page.locator('table.report caption', { hasText: 'Lab 1 (School)' }).waitFor();
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    assert.equal(csv.suggestedFilename(), 'hardware-by-room.csv');
    assert.match(readFileSync((await csv.path())!, 'utf8'), /^room,room_id,category,value,count\r\nLab 1,\d+,Microprocesadores,/);

    await page.getByRole('link', { name: 'Software', exact: true }).click();
    await page.getByLabel('Package').fill('firefox');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const packages = page.locator('tr[data-package]');
    await eventually(async () => (await packages.count()) === 2, 'two versions');
    assert.deepEqual(await packages.allTextContents(), ['firefox128.01pc01', 'firefox115.01pc02']);
    assert.deepEqual(await seriousViolations(page), [], 'the Software page passes axe-core');
    await screenshot(page, 'report-software');
    await packages.first().getByRole('link', { name: 'pc01' }).click();
    await page.getByRole('heading', { name: /pc01/ }).waitFor();
  } finally {
    await site.close();
  }
});

test.run();
