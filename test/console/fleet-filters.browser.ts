import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import { type TestBrowser, launchBrowser, screenshot } from '../support/browser';
import { eventually } from '../support/fake-agent';
import { macFor } from '../support/fixtures';
import { bulkClients, clientRow, consoleSite, groupRow, signIn } from './site';

let browser: TestBrowser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after(async () => {
  await browser.close();
});

test('the fleet narrows to clients by state and last result, selects every one shown, and exports what it shows as CSV', async () => {
  const site = await consoleSite(3);
  try {
    const [live, off, windows] = site.ips as [string, string, string];
    await site.connect(live);
    const failing = await site.connect(windows, { mode: 'windows' });
    failing.on('hardware', { status: 500 });
    assert.equal((await site.s.post('/refresh', { clients: [live] })).status, 200);
    assert.equal((await site.s.post('/hardware', { clients: [windows] })).status, 200);
    const resultOf = async (ip: string) =>
      ((await site.s.get('/clients')).body.clients as { addr: string; last_cmd: { result: string } }[]).find((c) => c.addr === ip)?.last_cmd
        .result;
    await eventually(async () => (await resultOf(live)) === 'success', 'the refresh answered');
    await eventually(async () => (await resultOf(windows)) === 'failure', 'the hardware inventory failed');

    const page = await browser.page();
    await signIn(page, site.url);
    await clientRow(page, windows).locator('.state-WIN').waitFor();
    const shown = () => page.locator('li.row.computer').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-ip')));

    await page.getByRole('button', { name: 'ogLive' }).click();
    await page.getByRole('button', { name: 'Windows', exact: true }).click();
    await eventually(async () => (await shown()).join() === [live, windows].join(), 'ogLive and Windows only');
    assert.equal(await page.getByRole('button', { name: 'ogLive' }).getAttribute('aria-pressed'), 'true', 'the chip says it is on');
    await page.getByLabel('Last result').selectOption('success');
    await eventually(async () => (await shown()).join() === live, 'and a successful last command');
    await page.getByRole('button', { name: 'Select the one shown' }).click();
    await page.locator('.selected-count', { hasText: '1 selected' }).waitFor();
    await screenshot(page, 'fleet-filtered');

    await page.getByLabel('Last result').selectOption('');
    await page.getByRole('button', { name: 'ogLive' }).click();
    await page.getByRole('button', { name: 'Windows', exact: true }).click();
    await page.getByRole('button', { name: 'Off', exact: true }).click();
    await eventually(async () => (await shown()).join() === off, 'the one switched off');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    assert.equal(download.suggestedFilename(), 'fleet.csv');
    const csv = readFileSync((await download.path())!, 'utf8');
    const mac = macFor(2).match(/../g)!.join(':');
    assert.equal(
      csv,
      `name,ip,mac,center,room,folder,state,last_result\r\npc02,${off},${mac},School,Lab 1,,off,\r\n`,
      'what the tree shows, with where each client is',
    );
  } finally {
    await site.close();
  }
});

test('the keyboard moves along the tree: arrows between rows (scrolling to rows not drawn yet), Home and End, Left and Right fold and unfold, Space ticks', async () => {
  const site = await consoleSite(3);
  try {
    await bulkClients(site, 300);
    const page = await browser.page();
    await signIn(page, site.url);
    const focusedRow = () =>
      page.evaluate(() => {
        const row = document.activeElement?.closest('li');
        return row?.getAttribute('data-ip') ?? row?.querySelector('.name')?.textContent ?? '';
      });
    await groupRow(page, 'Lab 1').locator('input[type=checkbox]').focus();
    await page.keyboard.press('ArrowDown');
    await eventually(async () => (await focusedRow()) === site.ips[0], 'down: the first client of the room');
    await page.keyboard.press('Space');
    await page.locator('.selected-count', { hasText: '1 selected' }).waitFor();
    await page.keyboard.press('ArrowUp');
    await eventually(async () => (await focusedRow()) === 'Lab 1', 'up: the room again');
    await page.keyboard.press('ArrowLeft');
    await eventually(async () => (await clientRow(page, site.ips[0]!).count()) === 0, 'left folds the room');
    assert.equal(await focusedRow(), 'Lab 1', 'the focus stays on the room');
    await page.keyboard.press('ArrowRight');
    await clientRow(page, site.ips[0]!).waitFor();
    await page.keyboard.press('End');
    await eventually(async () => (await focusedRow()) === '10.0.5.19', 'End: the last client, far below what was drawn');
    await page.keyboard.press('Home');
    await eventually(async () => (await focusedRow()) === 'School', 'Home: the first row');
  } finally {
    await site.close();
  }
});

test('CSV import: every row is checked first, a refused row named with its field and nothing stored; fixed, every client is added at once', async () => {
  const site = await consoleSite(0);
  try {
    const page = await browser.page();
    await signIn(page, site.url);
    await page.getByRole('button', { name: 'Import CSV or dhcpd.conf' }).click();
    const dialog = page.locator('dialog');
    const file = ['name;ip;mac;room', 'pc-a;127.0.9.1;00:11:22:33:44:01;Lab 1', 'pc-b;127.0.9.2;not-a-mac;Lab 1', ''].join('\r\n');
    await dialog.getByLabel('Or paste it here').fill(file);
    await dialog.getByRole('button', { name: 'Check the rows' }).click();
    await dialog.locator('caption', { hasText: '1 rows accepted, 1 refused' }).waitFor();
    assert.match(await dialog.locator('tr[data-line="3"]').innerText(), /mac: /, 'the refused row names its field');
    await screenshot(page, 'csv-import-refused');
    assert.equal((await site.s.get('/client/info', { client: ['127.0.9.1'] })).status, 400, 'nothing stored by a check: an unknown client');

    await dialog.getByLabel('Or paste it here').fill(file.replace('not-a-mac', '00:11:22:33:44:02'));
    await dialog.getByRole('button', { name: 'Check the rows' }).click();
    await dialog.getByRole('button', { name: 'Add the 2 clients' }).click();
    await dialog.waitFor({ state: 'detached' });
    await clientRow(page, '127.0.9.2').waitFor();
    assert.equal((await site.s.get('/client/info', { client: ['127.0.9.1'] })).body.name, 'pc-a');
  } finally {
    await site.close();
  }
});

test('dhcpd.conf import: a pasted dhcpd.conf is told from CSV, each host checked with its room, then the hosts taken are added', async () => {
  // One client on 127.0.1.1 gives Lab 1 (netmask 255.0.0.0, no gateway) its network.
  const site = await consoleSite(1);
  try {
    const page = await browser.page();
    await signIn(page, site.url);
    await page.getByRole('button', { name: 'Import CSV or dhcpd.conf' }).click();
    const dialog = page.locator('dialog');
    const conf = [
      '# from the old server',
      'subnet 127.0.0.0 netmask 255.0.0.0 {',
      '  host lab-a { hardware ethernet 0:11:22:33:55:1; fixed-address 127.0.9.11; }',
      '  host lab-b {',
      '    hardware ethernet 00:11:22:33:55:01;',
      '    fixed-address 127.0.9.12;',
      '  }',
      '  host lab-c { hardware ethernet 00:11:22:33:55:03; fixed-address 127.0.9.13; option host-name "pc-c"; }',
      '}',
    ].join('\n');
    await dialog.getByLabel('Or paste it here').fill(conf);
    await dialog.locator('.dhcpd-format').waitFor();
    await dialog.getByRole('button', { name: 'Check the hosts' }).click();
    await dialog.locator('caption', { hasText: '2 rows accepted, 1 refused' }).waitFor();
    assert.match(
      await dialog.locator('tr[data-line="4"]').innerText(),
      /mac: the host at line 3 has mac/,
      'the duplicate MAC, with its line',
    );
    assert.match(await dialog.locator('tr[data-line="8"]').innerText(), /pc-c\s+00:11:22:33:55:03\s+Lab 1\s+Accepted/);
    await screenshot(page, 'dhcpd-import-checked');
    assert.equal((await site.s.get('/client/info', { client: ['127.0.9.11'] })).status, 400, 'nothing stored by a check');

    await dialog.getByRole('button', { name: 'Add the 2 clients' }).click();
    await dialog.locator('caption', { hasText: '2 clients added, 1 hosts refused' }).waitFor();
    await clientRow(page, '127.0.9.13').waitFor();
    const added = await site.s.get('/client/info', { client: ['127.0.9.13'] });
    assert.deepEqual([added.body.name, added.body.room], ['pc-c', site.room]);
    assert.equal((await site.s.get('/client/info', { client: ['127.0.9.12'] })).status, 400, 'the refused host is not added');
  } finally {
    await site.close();
  }
});

test('bulk edit: the repository of every selected client at once', async () => {
  const site = await consoleSite(3);
  try {
    const page = await browser.page();
    await signIn(page, site.url);
    await groupRow(page, 'Lab 1').locator('input[type=checkbox]').check();
    await page.locator('[data-action=repository]').click();
    const dialog = page.locator('dialog');
    await dialog.locator('select[name=id] option[value="1"]').waitFor({ state: 'attached' });
    await dialog.locator('select[name=id]').selectOption('1');
    await dialog.getByRole('button', { name: 'Repository' }).click();
    await dialog.waitFor({ state: 'detached' });
    for (const ip of site.ips) {
      assert.equal((await site.s.get('/client/info', { client: [ip] })).body.repo_id, 1, `${ip} in repository 1`);
    }
  } finally {
    await site.close();
  }
});

test('the fleet narrows to the PCs holding an image, picked by name, and the chip takes that away', async () => {
  const site = await consoleSite(3);
  try {
    const [source] = site.ips as [string, string, string];
    const agent = await site.connect(source);
    agent.on('image/create', (r) => ({
      body: { ...r.body, software: '', filesystem: 'EXT4', datasize: 1024, size: 1024, perms: 420, lastupdate: 1664897550, checksum: '' },
    }));
    const created = await site.s.post('/image/create', {
      clients: [source],
      disk: '1',
      partition: '1',
      code: '131',
      id: '0',
      name: 'base',
    });
    assert.equal(created.status, 200, created.text);
    await eventually(
      async () => (await site.s.get('/images')).body.images.some((i: { name: string }) => i.name === 'base'),
      'the image stored',
    );

    const page = await browser.page();
    await signIn(page, site.url);
    const shown = () => page.locator('li.row.computer').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-ip')));
    await eventually(async () => (await shown()).length === 3, 'every PC at first');
    await page.getByLabel('Image').selectOption({ label: 'base' });
    await page.getByRole('button', { name: 'Holding base' }).waitFor();
    await eventually(async () => (await shown()).join() === source, 'only the PC holding it');
    await page.getByRole('button', { name: 'Holding base' }).click();
    await eventually(async () => (await shown()).length === 3, 'every PC again');
  } finally {
    await site.close();
  }
});

test.run();
