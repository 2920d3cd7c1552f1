import assert from 'node:assert/strict';
import { test } from 'uvu';
import { type TestBrowser, launchBrowser, screenshot } from '../support/browser';
import { answerBytes } from '../support/fake-agent';
import { clientRow, consoleSite, groupRow, signIn } from './site';

let browser: TestBrowser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after(async () => {
  await browser.close();
});

/** The console's red (--danger, light). */
const red = 'rgb(185, 28, 28)';
const colour = (locator: import('playwright-core').Locator) => locator.evaluate((node) => getComputedStyle(node).color);

test('a command that exits non-zero is red as a failure on its job (listed first, with its exit code and output), on the PC, in the fleet and on the dashboard', async () => {
  const site = await consoleSite(2);
  try {
    const [good, bad] = site.ips as [string, string];
    (await site.connect(good)).on('shell/run', (r) => ({ body: { cmd: r.body.run, out: 'fine\n', retcode: 0 } }));
    (await site.connect(bad)).on('shell/run', (r) => ({ body: { cmd: r.body.run, out: 'false: it went wrong\n', retcode: 1 } }));
    const page = await browser.page();
    await signIn(page, site.url);
    await groupRow(page, 'Lab 1').locator('input[type=checkbox]').check();
    await page.locator('[data-action=shell]').click();
    await page.locator('dialog textarea[name=run]').fill('false');
    await page.locator('dialog').getByRole('button', { name: 'Run command' }).click();
    const link = page.locator('details.run a.job-link');
    await link.waitFor();
    await link.click();

    // The job: the failed PC first, in red, with its exit code and what it printed.
    const rows = page.locator('tbody tr[data-ip]');
    await page.locator(`tr[data-ip="${bad}"][data-state=failed]`).waitFor();
    await page.locator(`tr[data-ip="${good}"][data-state=done]`).waitFor();
    assert.equal(await rows.first().getAttribute('data-ip'), bad, 'the failed PC is listed first');
    const line = page.locator(`tr[data-ip="${bad}"]`);
    assert.equal(await colour(line.locator('td.job-state')), red, 'its state is red');
    assert.match(await line.innerText(), /Failed\s+Exit code 1/, 'its outcome says the exit code');
    assert.equal(await line.locator('td[data-code]').innerText(), '1');
    await line.getByText('Output').click();
    await line.locator('pre.output', { hasText: 'false: it went wrong' }).waitFor();
    assert.equal(await page.locator('.job-bar .bar-failed').count(), 1, 'the bar has a red part');
    await page.getByRole('button', { name: 'Retry the failed one' }).waitFor();
    await screenshot(page, 'job-failed');
    await page.locator('[data-show=failed]').click();
    assert.equal(await rows.count(), 1, 'narrowed to the failed PC');

    // The PC: its last command failed, in red; its last job says how.
    await page.goto(`${site.url}/console/#/client/${bad}`);
    const result = page.locator('[data-result=failure]');
    await result.waitFor();
    assert.equal(await result.innerText(), 'Failure');
    assert.equal(await colour(result), red, 'red on the PC page');
    await page.locator('.last-job[data-state=failed]', { hasText: 'Exit code 1' }).waitFor();

    // The fleet: red, and among the failures of the "Last result" filter.
    await page.locator('header nav').getByRole('link', { name: 'Fleet', exact: true }).click();
    const badResult = clientRow(page, bad).locator('.result');
    await badResult.waitFor();
    assert.equal(await badResult.innerText(), 'Failure');
    assert.equal(await colour(badResult), red, 'red in the fleet');
    await page.locator('.result-filter select').selectOption('failure');
    await clientRow(page, good).waitFor({ state: 'detached' });
    assert.deepEqual(
      await page.locator('li.row.computer').evaluateAll((r) => r.map((row) => row.getAttribute('data-ip'))),
      [bad],
      'the filter finds the failure',
    );

    // The dashboard: among the latest failures.
    await page.locator('header nav').getByRole('link', { name: 'Dashboard', exact: true }).click();
    await page.locator('[data-jobs=failed] li', { hasText: 'Run command' }).waitFor();
  } finally {
    await site.close();
  }
});

test('while a command runs the PC says so, never the result before it; in Spanish a job reads in Spanish, its dates too', async () => {
  const site = await consoleSite(1);
  try {
    const ip = site.ips[0]!;
    const agent = await site.connect(ip);
    agent.on('shell/run', { none: true });
    const page = await browser.page({ locale: 'es-ES' });
    await signIn(page, site.url);
    const r = await site.s.post('/shell/run', { clients: [ip], run: 'sleep 100' });
    assert.equal(r.status, 200, r.text);
    await clientRow(page, ip).locator('.state', { hasText: 'Ocupado' }).waitFor();
    assert.equal(await clientRow(page, ip).locator('.result').count(), 0, 'no stale result beside "busy"');
    await page.goto(`${site.url}/console/#/client/${ip}`);
    await page.locator('section[aria-labelledby=last-results] .job-running', { hasText: 'Ejecutando un comando…' }).waitFor();

    agent.write(answerBytes(200, { cmd: 'sleep 100', out: 'roto\n', retcode: 3 }));
    await page.goto(`${site.url}/console/#/job/${r.body.job}`);
    await page.locator('h1', { hasText: `Trabajo ${r.body.job}: Ejecutar comando` }).waitFor();
    await page.locator(`tr[data-ip="${ip}"][data-state=failed]`, { hasText: 'Código de salida 3' }).waitFor();
    assert.equal(await page.locator('dd[data-who]').innerText(), 'la clave de la API (api_token)');
    const when = await page.locator('dl.job-facts dd').last().innerText();
    assert.match(when, /^Empezó \d{1,2} [a-z]{3,4}\.? \d{4}/, `a Spanish date: ${when}`);
  } finally {
    await site.close();
  }
});

test.run();
