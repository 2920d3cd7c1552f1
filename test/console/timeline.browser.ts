import assert from 'node:assert/strict';
import { test } from 'uvu';
import { type TestBrowser, launchBrowser, screenshot, seriousViolations } from '../support/browser';
import { eventually } from '../support/fake-agent';
import { macFor } from '../support/fixtures';
import { pcGet } from '../plugins/boot/support';
import { consolePlugins, consoleSite, signIn } from './site';

let browser: TestBrowser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after(async () => {
  await browser.close();
});

test("a PC's timeline shows its wake and that it woke, its network boot, a failed job in red, its power states and who changed its record, newest first", async () => {
  const site = await consoleSite(2, { plugins: [...consolePlugins, 'history', 'energy'] });
  try {
    const ip = site.ips[0]!;
    // Woken, it boots from the network and its agent comes up.
    const wake = await site.s.post('/wol', { clients: [ip], type: 'broadcast' });
    assert.equal(wake.status, 200, wake.text);
    assert.equal((await pcGet(site.s.port, `/boot/ipxe?mac=${macFor(1)}`, { from: ip })).status, 200);
    const agent = await site.connect(ip);
    agent.on('refresh', { status: 500 });
    const refresh = await site.s.post('/refresh', { clients: [ip] });
    assert.equal(refresh.status, 200, refresh.text);
    const id = (await site.s.get('/client/info', { client: [ip] })).body.id;
    assert.equal((await site.s.post('/client/update', { id, name: 'front-desk' })).status, 200);
    await eventually(async () => {
      const { entries } = (await site.s.get(`/client/timeline?client=${ip}`)).body;
      return entries.some((e: { kind: string }) => e.kind === 'audit') && entries.some((e: { state: string }) => e.state === 'failed');
    }, 'every record written');

    const page = await browser.page();
    await signIn(page, site.url);
    await page.goto(`${site.url}/console/#/client/${ip}`);
    await page.getByRole('link', { name: 'Timeline', exact: true }).click();
    const entry = (kind: string) => page.locator(`li.timeline-entry[data-kind=${kind}]`);
    await entry('wake').first().waitFor();
    assert.match(await entry('wake').first().innerText(), /Wake: Woken: its agent connected/, 'the wake, and that it woke');
    assert.match(await entry('wake').first().innerText(), /by the API key \(api_token\)/, 'who woke it');
    assert.match(await entry('boot').first().innerText(), /Network boot: Script served → Agent up/, 'its boot, stage by stage');
    const failed = entry('job').and(page.locator('[data-state=failed]')).first();
    assert.match(await failed.innerText(), /Refresh: Failed · The agent answered 500/, 'the failed refresh');
    assert.ok((await failed.getAttribute('class'))?.includes('wrong'), 'marked as gone wrong');
    await failed.getByRole('link', { name: `Job ${refresh.body.job}` }).waitFor();
    assert.ok((await entry('power').count()) > 0, 'its power states');
    assert.match(await entry('audit').first().innerText(), /name: pc01 → front-desk/, 'the change of its record');
    assert.match(await entry('audit').first().innerText(), /by api_token/, 'and who made it, as the audit log names them');
    const kinds = await page.locator('li.timeline-entry').evaluateAll((items) => items.map((i) => i.getAttribute('data-kind')));
    assert.equal(kinds[0], 'audit', 'newest first: the record changed last');
    await screenshot(page, 'timeline');
    assert.deepEqual(await seriousViolations(page), [], 'the timeline passes axe-core');

    // Narrowed to the wakes alone.
    for (const chip of ['job', 'power', 'boot', 'audit']) await page.locator(`.chips button[data-kind=${chip}]`).click();
    await eventually(async () => (await page.locator('li.timeline-entry').count()) === (await entry('wake').count()), 'only wakes');
  } finally {
    await site.close();
  }
});

test("a PC's timeline shows who signed in and out of it, by user name, in English and in Spanish", async () => {
  const site = await consoleSite(1, { plugins: [...consolePlugins, 'history', 'energy'] });
  try {
    const ip = site.ips[0]!;
    const agent = await site.connect(ip, { mode: 'windows' });
    agent.event('start', 'ana.garcia');
    await eventually(async () => (await site.s.get('/clients')).body.clients[0]?.state === 'WINS', 'in a session');
    agent.event('stop', 'ana.garcia');
    await eventually(async () => {
      const { entries } = (await site.s.get(`/client/timeline?client=${ip}`)).body;
      return entries.filter((e: { kind: string }) => e.kind === 'session').length === 2;
    }, 'the sign-in and sign-out recorded');

    const page = await browser.page();
    await signIn(page, site.url);
    await page.goto(`${site.url}/console/#/client/${ip}`);
    await page.getByRole('link', { name: 'Timeline', exact: true }).click();
    const sessions = page.locator('li.timeline-entry[data-kind=session]');
    await sessions.first().waitFor();
    assert.deepEqual(
      (await sessions.allInnerTexts()).map((text) => text.split('\n').slice(1).join(' ').trim()),
      ['Signed out: ana.garcia · Windows', 'Signed in: ana.garcia · Windows'],
      'newest first, each with the user',
    );
    await page.locator('.chips button[data-kind=session]', { hasText: 'Sign-ins' }).waitFor();
    assert.deepEqual(await seriousViolations(page), [], 'the timeline with sign-ins passes axe-core');
    await screenshot(page, 'timeline-sessions');

    const spanish = await browser.page({ locale: 'es-ES' });
    await signIn(spanish, site.url);
    await spanish.goto(`${site.url}/console/#/client/${ip}`);
    await spanish.getByRole('link', { name: 'Cronología', exact: true }).click();
    await spanish.locator('li.timeline-entry[data-kind=session]', { hasText: 'Inició sesión: ana.garcia' }).waitFor();
    await spanish.locator('li.timeline-entry[data-kind=session]', { hasText: 'Cerró sesión: ana.garcia' }).waitFor();
  } finally {
    await site.close();
  }
});

test.run();
