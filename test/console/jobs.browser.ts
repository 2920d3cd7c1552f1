import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import { ImageStore } from '../../plugins/images';
import { type TestBrowser, launchBrowser, screenshot, seriousViolations } from '../support/browser';
import { answerBytes, defaultConfiguration, eventually } from '../support/fake-agent';
import { TOKEN } from '../support/server';
import { consolePlugins, consoleSite, groupRow, signIn } from './site';

let browser: TestBrowser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after(async () => {
  await browser.close();
});

test('a command becomes a job: its page shows each PC as it answers, survives a reload, retries the failed PC; the Jobs page lists and filters', async () => {
  const site = await consoleSite(3);
  try {
    const [quick, slow, failing] = site.ips as [string, string, string];
    await site.connect(quick);
    const late = await site.connect(slow);
    const broken = await site.connect(failing);
    // The slow PC answers once the test writes its answer: the page must show it sent, then done.
    late.on('refresh', { none: true });
    broken.on('refresh', { status: 500 });

    const page = await browser.page();
    await signIn(page, site.url);
    await groupRow(page, 'Lab 1').locator('input[type=checkbox]').check();
    await page.locator('[data-action=refresh]').click();
    await page.locator('dialog').getByRole('button', { name: 'Refresh', exact: true }).click();
    const link = page.locator('details.run a.job-link');
    await link.waitFor();
    const id = (await link.innerText()).replace('Job ', '');
    await link.click();

    const line = (ip: string) => page.locator(`tr[data-ip="${ip}"]`);
    await line(quick).and(page.locator('[data-state=done]')).waitFor();
    await line(failing).and(page.locator('[data-state=failed]')).waitFor();
    assert.equal(await line(slow).getAttribute('data-state'), 'sent', 'the slow PC is still at work');
    await page.reload();
    await page.locator('h1', { hasText: `Job ${id}: refresh` }).waitFor();
    assert.equal(await line(failing).getAttribute('data-state'), 'failed', 'a reload loses nothing');
    assert.ok(await page.locator('.job-running').isVisible(), 'running');
    late.write(answerBytes(200, defaultConfiguration));
    await line(slow).and(page.locator('[data-state=done]')).waitFor();
    await page.locator('.job-running').waitFor({ state: 'detached' });
    await screenshot(page, 'job');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8').split('\r\n');
    assert.equal(csv[0], 'client,room,state,reason,status,outcome,code,sent,ended');
    assert.deepEqual(
      csv.slice(1, -1).map((row) => row.split(',').slice(0, 3).join(',')),
      [quick, slow, failing].map((ip) => `${ip},${site.room},${ip === failing ? 'failed' : 'done'}`).sort(),
      'a line per PC',
    );

    await page.getByRole('button', { name: 'Retry the failed one' }).click();
    await page.locator('h1', { hasText: `Job ${Number(id) + 1}: refresh` }).waitFor();
    await line(failing).and(page.locator('[data-state=done]')).waitFor();
    assert.equal(await page.locator('tbody tr').count(), 1, 'only the failed PC again');

    await page.getByRole('link', { name: 'Jobs', exact: true }).click();
    await page.locator(`tr[data-job="${id}"]`).waitFor();
    assert.equal(await page.locator('tbody tr[data-job]').count(), 2, 'both jobs listed');
    await page.getByLabel('State').selectOption('failed');
    await page.getByRole('button', { name: 'Filter' }).click();
    await eventually(async () => (await page.locator('tbody tr[data-job]').count()) === 1, 'the job with a failed PC');
    assert.equal(await page.locator('tbody tr[data-job]').getAttribute('data-job'), id);
    await screenshot(page, 'jobs');
  } finally {
    await site.close();
  }
});

test("with the event stream, a job's page changes a PC's line as its answer arrives, and asks the server again only when the job ends", async () => {
  const site = await consoleSite(2, { plugins: [...consolePlugins, 'events'] });
  try {
    const [quick, slow] = site.ips as [string, string];
    await site.connect(quick);
    const late = await site.connect(slow);
    late.on('refresh', { none: true });
    const id = (await site.s.post('/refresh', { clients: [quick, slow] })).body.job as number;
    const page = await browser.page();
    await signIn(page, site.url);
    await page.goto(`${site.url}/console/#/job/${id}`);
    await page.locator(`section[data-job="${id}"][data-follow=events]`).waitFor();
    const line = (ip: string) => page.locator(`tr[data-ip="${ip}"]`);
    await line(quick).and(page.locator('[data-state=done]')).waitFor();
    const reads: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === `/jobs/${id}`) reads.push(r.url());
    });
    // Longer than the page's polling period (jobPollMs, 2 s): a page that polled would ask in this time.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    assert.deepEqual(reads, [], 'no polling while the stream is open');
    late.write(answerBytes(200, defaultConfiguration));
    await line(slow).and(page.locator('[data-state=done]')).waitFor();
    await page.locator('.job-running').waitFor({ state: 'detached' });
    assert.equal(reads.length, 1, 'read once more, when the job ended');
    assert.notEqual(await line(slow).locator('td').nth(4).innerText(), '', 'its end time shown');
  } finally {
    await site.close();
  }
});

test('a restore over 50 PCs: the job page shows each PC sent, then done as its agent answers, wave after wave', async () => {
  const site = await consoleSite(50);
  try {
    const repository = (await site.s.get('/repositories')).body.repositories[0].id as number;
    const image = await site.s.app.container.resolve(ImageStore).saveCapture({
      name: 'lab',
      repositoryId: repository,
      clientId: 0,
      disk: 1,
      partition: 1,
      code: 131,
      size: 1n,
      datasize: 1n,
      checksum: '',
      permissions: '644',
      lastUpdate: 0n,
      clonator: '',
      compressor: '',
      filesystem: 'EXT4',
    });
    assert.ok(image > 0);
    // Every agent takes the restore and answers only when the test says so.
    const agents = await Promise.all(
      site.ips.map(async (ip) => {
        const agent = await site.connect(ip);
        agent.on('image/restore', { none: true });
        return agent;
      }),
    );
    const page = await browser.page();
    await signIn(page, site.url);
    await groupRow(page, 'Lab 1').locator('input[type=checkbox]').check();
    await page.locator('[data-action=restore-image]').click();
    const dialog = page.locator('dialog');
    await dialog.locator('select[name=id] option', { hasText: 'lab' }).waitFor({ state: 'attached' });
    await dialog.locator('select[name=partition] option[value="1:1"]').waitFor({ state: 'attached' });
    await dialog.locator('select[name=partition]').selectOption('1:1');
    await dialog.getByLabel(/I understand/).check();
    await dialog.getByRole('button', { name: 'Restore image' }).click();
    const link = page.locator('details.run a.job-link');
    await link.waitFor();
    await link.click();
    const inState = (state: string) => page.locator(`tbody tr[data-state=${state}]`);
    await eventually(async () => (await inState('sent').count()) === 50, 'all 50 sent');

    // Three waves of answers, at different times: the page follows each.
    const waves = [agents.slice(0, 10), agents.slice(10, 35), agents.slice(35)];
    let done = 0;
    for (const wave of waves) {
      for (const agent of wave) agent.write(answerBytes(200, { disk: '1', partition: '1', image_id: String(image) }));
      done += wave.length;
      await eventually(async () => (await inState('done').count()) === done, `${done} done`);
      assert.equal(await inState('sent').count(), 50 - done, 'the others still at work');
    }
    await page.locator('.job-running').waitFor({ state: 'detached' });
    assert.deepEqual(await seriousViolations(page), [], 'the job page passes axe-core');
  } finally {
    await site.close();
  }
});

test("a job's page larger than the server's answer limit says so in a sentence naming the setting", async () => {
  const site = await consoleSite(40, { rest: { max_response_bytes: 4096 } });
  try {
    const id = (await site.s.post('/refresh', { clients: site.ips })).body.job as number;
    assert.equal((await site.s.get(`/jobs/${id}`)).status, 500, 'over the limit');
    const page = await browser.page();
    await page.addInitScript((key) => sessionStorage.setItem('ogserve.key', key), TOKEN);
    await page.goto(`${site.url}/console/#/job/${id}`);
    await page
      .locator('[role=alert]', {
        hasText:
          'The answer is larger than this server sends (4096 bytes, rest.max_response_bytes): its administrator can raise that limit.',
      })
      .waitFor();
  } finally {
    await site.close();
  }
});

test('the dashboard is the landing page: clients by state in each center, each number opening the fleet narrowed to them, and running and failed jobs', async () => {
  const site = await consoleSite(3);
  try {
    const [on, off, broken] = site.ips as [string, string, string];
    const agent = await site.connect(on);
    agent.on('hardware', { none: true });
    assert.equal((await site.s.post('/hardware', { clients: [on] })).status, 200);
    (await site.connect(broken)).on('refresh', { status: 500 });
    const failed = await site.s.post('/refresh', { clients: [broken] });
    assert.equal(failed.status, 200, failed.text);

    const page = await browser.page();
    await page.goto(`${site.url}/`);
    await page.getByRole('radio', { name: 'Key or token' }).check();
    await page.getByLabel('API key').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('h1', { hasText: 'Dashboard' }).waitFor();
    const school = page.locator('tr[data-center=School]');
    await school.locator('[data-count=BSY]', { hasText: '1' }).waitFor();
    assert.equal(await school.locator('[data-count=off]').innerText(), '1', 'one of School is off');
    await page.locator('[data-jobs=sent] li', { hasText: 'hardware' }).waitFor();
    await page.locator('[data-jobs=failed] li', { hasText: 'refresh' }).waitFor();
    await screenshot(page, 'dashboard');

    await school.locator('[data-count=off]').click();
    await page.getByRole('button', { name: 'Only School ✕' }).waitFor();
    const shown = await page.locator('li.row.computer').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-ip')));
    assert.deepEqual(shown, [off], 'the fleet shows the client of School that is off');
  } finally {
    await site.close();
  }
});

test.run();
