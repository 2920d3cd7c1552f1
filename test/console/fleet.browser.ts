import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { test } from 'uvu';
import { type TestBrowser, launchBrowser, screenshot } from '../support/browser';
import { defaultConfiguration, eventually } from '../support/fake-agent';
import { macFor } from '../support/fixtures';
import { bulkClients, clientRow, consoleSite, groupRow, signIn } from './site';

let browser: TestBrowser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after(async () => {
  await browser.close();
});

const selectedCount = (page: Page) => page.locator('.selected-count');

/** What an agent reports of a disk with a cache partition (partition 3), in refresh and setup answers. */
const withCachePartition = {
  ...defaultConfiguration,
  partition_setup: [
    ...defaultConfiguration.partition_setup,
    { disk: '1', disk_type: '', partition: '3', code: 'ca', filesystem: 'CACHE', os: '', size: '20971520', used_size: '20' },
  ],
};

test('a wrong key is refused at sign-in; the right one opens the fleet; sign-out forgets it; a key refused later leads back to sign-in', async () => {
  const site = await consoleSite(2);
  try {
    const page = await browser.page();
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(`${site.url}/`);
    assert.equal(new URL(page.url()).pathname, '/console/', 'GET / leads to the console');
    await page.getByRole('radio', { name: 'Key or token' }).check();
    await page.getByLabel('API key').fill('not-the-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const field = page.getByLabel('API key');
    await page.getByText('That key is not accepted by this server.').waitFor();
    assert.equal(await field.getAttribute('aria-invalid'), 'true', 'the refusal is tied to the key field');
    assert.equal(await page.evaluate(() => sessionStorage.getItem('ogserve.key')), null, 'a refused key is not kept');
    await screenshot(page, 'sign-in-refused');

    await signIn(page, site.url);
    await clientRow(page, site.ips[0]!).waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.getItem('ogserve.key')), 'test-token', 'the key is kept for this tab only');
    const api = await site.s.get('/version');
    assert.ok(api.status === 200, 'sanity');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.getItem('ogserve.key')), null, 'sign-out forgets the key');

    // A key the server stops accepting (rotated): the next call answers 401 and the console says so.
    await signIn(page, site.url);
    await clientRow(page, site.ips[0]!).waitFor();
    await page.evaluate(() => sessionStorage.setItem('ogserve.key', 'rotated-away'));
    await page.reload();
    await page.getByText(/Signed out: the server no longer accepts the key/).waitFor();
    await page.getByLabel('API key').waitFor();

    const outside = requests.filter((url) => !url.startsWith(site.url));
    assert.deepEqual(outside, [], 'nothing is loaded from outside the server');
  } finally {
    await site.close();
  }
});

test('the tree of 2,000 clients draws only the rows in view, counts per room and center, searches by name, IP and MAC, and selects a room', async () => {
  const site = await consoleSite(0);
  try {
    await bulkClients(site, 2000);
    const page = await browser.page();
    await signIn(page, site.url);
    const tree = page.locator('section.tree');
    await page.locator('li.row.computer').first().waitFor();
    // 1 center, 1 + 20 rooms, 2,000 clients.
    assert.equal(await tree.getAttribute('data-rows'), String(1 + 21 + 2000), 'every node is in the list');
    const drawn = await page.locator('li.row').count();
    assert.ok(drawn > 10 && drawn < 120, `only the rows in view are drawn (${drawn})`);
    assert.match((await groupRow(page, 'School').locator('.counts').textContent()) ?? '', /0 of 2000 on/, 'center count');
    assert.match((await groupRow(page, 'Room 001').locator('.counts').textContent()) ?? '', /0 of 100 on/, 'room count');
    await screenshot(page, 'fleet-2000');

    await tree.evaluate((element) => {
      element.scrollTop = element.scrollHeight;
    });
    await page.locator('li.row.computer .name', { hasText: 'host01999' }).waitFor();

    const search = page.getByPlaceholder('Search by name, IP or MAC');
    await search.fill('host01234');
    await page.locator('#match-count', { hasText: /^1 matching client$/ }).waitFor();
    assert.equal(await page.locator('li.row.computer').count(), 1, 'by name');
    const n = 1000 + 1234;
    await search.fill(`10.0.${(n >> 8) & 255}.${n & 255}`);
    await page.locator('li.row.computer .name', { hasText: 'host01234' }).waitFor();
    const mac = macFor(0x100000 + n).replace(/(..)(?!$)/g, '$1:');
    await search.fill(mac.slice(-8).toUpperCase());
    await page.locator('#match-count', { hasText: /^1 matching client$/ }).waitFor();
    assert.equal(await page.locator('li.row.computer .name').textContent(), 'host01234', `by the end of the MAC (${mac.slice(-8)})`);

    // A room's name finds the room with all its clients; its box selects them all.
    await search.fill('Room 007');
    await page.locator('#match-count', { hasText: '100 matching clients' }).waitFor();
    await groupRow(page, 'Room 007').locator('input[type=checkbox]').check();
    await selectedCount(page).filter({ hasText: '100 selected' }).waitFor();
    await search.fill('');
    await page.locator('#match-count', { hasText: '2000 clients' }).waitFor();
    await selectedCount(page).filter({ hasText: '100 selected' }).waitFor();
    assert.equal(
      await groupRow(page, 'School')
        .locator('input[type=checkbox]')
        .evaluate((box) => (box as HTMLInputElement).indeterminate),
      true,
      'the center is partly selected',
    );
  } finally {
    await site.close();
  }
});

test('select a room and wake it: each client gets its magic packet on 127/8 and the report says sent', async () => {
  const site = await consoleSite(3);
  try {
    const page = await browser.page();
    await signIn(page, site.url);
    await groupRow(page, 'Lab 1').locator('input[type=checkbox]').check();
    await selectedCount(page).filter({ hasText: '3 selected' }).waitFor();
    await page.locator('[data-action=wake]').click();
    await screenshot(page, 'action-wake');
    await page.locator('dialog').getByRole('button', { name: 'Wake' }).click();
    const packets = await site.wol.waitFor(3);
    const macs = packets.map((p) => p.data.subarray(6, 12).toString('hex')).sort();
    assert.deepEqual(macs, [macFor(1), macFor(2), macFor(3)], 'one magic packet per client, to the room broadcast');
    for (const p of packets) assert.equal(p.data.length, 102, 'magic packet: 6 x FF then the MAC 16 times');
    const run = page.locator('details.run').first();
    for (const ip of site.ips) await run.locator(`tr[data-ip="${ip}"] .outcome-sent`).waitFor();
    // The poll shows them waking, without a reload.
    await clientRow(page, site.ips[0]!).locator('.state-WOL_SENT').waitFor({ timeout: 5000 });
  } finally {
    await site.close();
  }
});

test('setting a boot mode writes both boot files of the selected client', async () => {
  const site = await consoleSite(2);
  try {
    const page = await browser.page();
    await signIn(page, site.url);
    await clientRow(page, site.ips[1]!).locator('input[type=checkbox]').check();
    await page.locator('[data-action=boot]').click();
    await page.locator('dialog select[name=mode]').selectOption('pxe');
    await page.locator('dialog').getByRole('button', { name: 'Boot mode' }).click();
    await page.locator(`details.run tr[data-ip="${site.ips[1]}"] .outcome-done`).waitFor();
    const tftp = path.join(site.s.dir, 'tftpboot');
    const bios = path.join(
      tftp,
      'menu.lst',
      `01-${macFor(2)
        .toUpperCase()
        .replace(/(..)(?!$)/g, '$1-')}`,
    );
    const uefi = path.join(tftp, 'grub', `01-${macFor(2).replace(/(..)(?!$)/g, '$1:')}`);
    assert.ok(existsSync(bios) && existsSync(uefi), 'BIOS and UEFI files written');
    const info = await site.s.get('/client/info', { client: [site.ips[1]] });
    assert.equal(info.body.boot, 'pxe', 'the record names the new mode');
    assert.ok(readFileSync(bios, 'utf8').length > 0, 'from the pxe template');
  } finally {
    await site.close();
  }
});

test("a shell command on two clients shows each client's own output and exit code", async () => {
  const site = await consoleSite(2);
  try {
    const first = await site.connect(site.ips[0]!);
    const second = await site.connect(site.ips[1]!);
    first.on('shell/run', (r) => ({ body: { cmd: r.body.run, out: 'first says hi\n', retcode: 0 } }));
    second.on('shell/run', (r) => ({ body: { cmd: r.body.run, out: 'second failed\n', retcode: 3 } }));
    const page = await browser.page();
    await signIn(page, site.url);
    await groupRow(page, 'Lab 1').locator('input[type=checkbox]').check();
    await page.locator('[data-action=shell]').click();
    await page.locator('dialog textarea[name=run]').fill('echo hi');
    await page.locator('dialog').getByRole('button', { name: 'Run command' }).click();
    const run = page.locator('details.run').first();
    await run.locator(`tr[data-ip="${site.ips[0]}"] pre.output`, { hasText: 'first says hi' }).waitFor();
    await run.locator(`tr[data-ip="${site.ips[1]}"] pre.output`, { hasText: 'second failed' }).waitFor();
    assert.match(
      (await run.locator(`tr[data-ip="${site.ips[0]}"] .result`).textContent()) ?? '',
      /Success \(exit code 0\)/,
      'first result',
    );
    assert.match(
      (await run.locator(`tr[data-ip="${site.ips[1]}"] .result`).textContent()) ?? '',
      /Failure \(exit code 3\)/,
      'second result',
    );
    assert.equal((await first.waitFor('shell/run')).body.run, 'echo hi', 'the command reached the agent');
    await screenshot(page, 'shell-output');
  } finally {
    await site.close();
  }
});

test('adding a client with a bad MAC shows the error next to the MAC field; fixed, the client appears in the tree', async () => {
  const site = await consoleSite(1);
  try {
    const page = await browser.page();
    await signIn(page, site.url);
    await groupRow(page, 'Lab 1').locator('button.menu').click();
    await page.locator('dialog').getByRole('button', { name: 'Add client' }).click();
    const dialog = page.locator('dialog');
    await dialog.getByLabel('Name').fill('newpc');
    await dialog.getByLabel('IP address').fill('127.0.1.77');
    await dialog.getByLabel('MAC address').fill('00:11:22:33:44:zz');
    await dialog.getByRole('button', { name: 'Add client' }).click();
    const mac = dialog.getByLabel('MAC address');
    await dialog.locator('.field.invalid small.error').waitFor();
    assert.equal(await mac.getAttribute('aria-invalid'), 'true', 'the MAC field is marked');
    const describedBy = await mac.getAttribute('aria-describedby');
    assert.equal(
      await page.locator(`[id="${describedBy}"]`).textContent(),
      'MAC address must be a MAC address of 12 hexadecimal digits, such as 00:1a:2b:3c:4d:5e.',
      "the API's refusal as a sentence naming the field's label, under the field",
    );
    assert.equal(await dialog.getByLabel('IP address').getAttribute('aria-invalid'), null, 'other fields unmarked');
    await screenshot(page, 'client-add-bad-mac');
    await mac.fill('00:11:22:33:44:77');
    await dialog.getByRole('button', { name: 'Add client' }).click();
    await clientRow(page, '127.0.1.77').waitFor();
    assert.equal((await site.s.get('/client/info', { client: ['127.0.1.77'] })).body.mac, '001122334477', 'stored');
  } finally {
    await site.close();
  }
});

test('an image is created from one client and restored on another, with fake agents answering', async () => {
  const site = await consoleSite(2);
  try {
    const source = await site.connect(site.ips[0]!);
    const target = await site.connect(site.ips[1]!);
    source.on('image/create', (r) => ({
      body: {
        ...r.body,
        software: 'Ubuntu 22.04 LTS\n',
        filesystem: 'EXT4',
        datasize: 8589934592,
        size: 4294967296,
        perms: 420,
        lastupdate: 1664897550,
        checksum: 'D41D8CD98F00B204E9800998ECF8427E',
      },
    }));
    target.on('image/restore', (r) => ({ body: { disk: r.body.disk, partition: r.body.partition, image_id: r.body.id } }));
    const page = await browser.page();
    await signIn(page, site.url);
    await clientRow(page, site.ips[0]!).locator('input[type=checkbox]').check();
    await page.locator('[data-action=create-image]').click();
    const dialog = page.locator('dialog');
    await dialog.locator('select[name=partition] option[value="1:2"]').waitFor({ state: 'attached' });
    await dialog.locator('select[name=partition]').selectOption('1:2');
    await dialog.getByLabel('Image name').fill('ubuntu22');
    await dialog.getByLabel('Description').fill('Lab image');
    await dialog.getByRole('button', { name: 'Create image' }).click();
    const created = await source.waitFor('image/create');
    assert.equal(created.body.name, 'ubuntu22', 'the agent is asked for the image');
    assert.equal(created.body.partition, '2', 'of the chosen partition');
    await page.locator(`details.run tr[data-ip="${site.ips[0]}"] .result-success`).waitFor({ timeout: 10_000 });
    await page.getByRole('link', { name: 'Images', exact: true }).click();
    await page.locator('tr[data-image=ubuntu22]').waitFor();

    await page.getByRole('link', { name: 'Fleet' }).click();
    await clientRow(page, site.ips[0]!).locator('input[type=checkbox]').uncheck();
    await clientRow(page, site.ips[1]!).locator('input[type=checkbox]').check();
    await page.locator('[data-action=restore-image]').click();
    await dialog.locator('select[name=id] option', { hasText: 'ubuntu22' }).waitFor({ state: 'attached' });
    // The partition by name, from the PC's own disks.
    await dialog
      .locator('select[name=partition] option[value="1:2"]', { hasText: /^disk 1, partition 2: / })
      .waitFor({ state: 'attached' });
    await dialog.locator('select[name=partition]').selectOption('1:2');
    await dialog.getByLabel(/I understand/).check();
    await dialog.getByRole('button', { name: 'Restore image' }).click();
    const restored = await target.waitFor('image/restore');
    assert.equal(restored.body.name, 'ubuntu22', 'the other agent restores it');
    assert.equal(restored.body.partition, '2', 'on the chosen partition');
    await page.locator(`details.run tr[data-ip="${site.ips[1]}"] .result-success`).waitFor({ timeout: 10_000 });
    await screenshot(page, 'image-restored');
  } finally {
    await site.close();
  }
});

test('every other action on a selection reaches the agent and shows the outcome, then the result: inventories, session, refresh, live image, cache, reboot, power off', async () => {
  const site = await consoleSite(2);
  try {
    const cached = { name: 'ubuntu22', size: 4294967296, checksum: '' };
    const agent = await site.connect(site.ips[0]!, { configuration: { ...withCachePartition, cache: [cached] } });
    agent.on('cache/delete', () => ({ body: { cache: [] } }));
    const ip = site.ips[0]!;
    const page = await browser.page();
    await signIn(page, site.url);
    await clientRow(page, ip).locator('input[type=checkbox]').check();
    const dialog = page.locator('dialog');
    const run = (title: string) => page.locator('details.run', { has: page.locator('summary strong', { hasText: title }) }).first();
    const act = async (action: string, button: string, fill?: () => Promise<void>) => {
      await page.locator(`[data-action=${action}]`).click();
      await fill?.();
      await dialog.getByRole('button', { name: button, exact: true }).click();
    };

    await act('hardware', 'Hardware inventory');
    await agent.waitFor('hardware');
    await run('Hardware inventory').locator(`tr[data-ip="${ip}"] .result-success`).waitFor();

    await act('software', 'Software inventory', async () => {
      await dialog.locator('select[name=partition] option[value="1:2"]').waitFor({ state: 'attached' });
      await dialog.locator('select[name=partition]').selectOption('1:2');
    });
    assert.deepEqual((await agent.waitFor('software')).body, { disk: '1', partition: '2' }, 'the chosen partition');
    await run('Software inventory').locator(`tr[data-ip="${ip}"] .result-success`).waitFor();

    await act('session', 'Start session', async () => {
      await dialog.locator('select[name=partition] option[value="1:2"]').waitFor({ state: 'attached' });
      await dialog.locator('select[name=partition]').selectOption('1:2');
    });
    assert.deepEqual((await agent.waitFor('session')).body, { disk: '1', partition: '2' }, 'the session asked');
    await run('Start session').locator(`tr[data-ip="${ip}"] .result-success`).waitFor();

    await act('refresh', 'Refresh');
    await agent.waitFor('refresh', 1);
    await run('Refresh').locator(`tr[data-ip="${ip}"] .result-success`).waitFor();

    const before = (await site.s.get('/client/info', { client: [site.ips[1]] })).body;
    await clientRow(page, ip).locator('input[type=checkbox]').uncheck();
    await clientRow(page, site.ips[1]!).locator('input[type=checkbox]').check();
    const changed = await site.s.post('/client/update', { id: before.id, livedir: 'ogLive-old' });
    assert.equal(changed.status, 200, changed.text);
    await act('live', 'Live image');
    await run('Live image').locator(`tr[data-ip="${site.ips[1]}"] .outcome-done`).waitFor();
    const after = (await site.s.get('/client/info', { client: [site.ips[1]] })).body.livedir;
    assert.equal(after, before.livedir, 'the default live image is set again, replacing ogLive-old');
    await clientRow(page, site.ips[1]!).locator('input[type=checkbox]').uncheck();
    await clientRow(page, ip).locator('input[type=checkbox]').check();

    await page.locator('[data-action=cache]').click();
    await dialog.locator('td', { hasText: 'ubuntu22 (4 GiB)' }).waitFor();
    await dialog.getByLabel('ubuntu22').check();
    await dialog.getByRole('button', { name: 'Delete from cache' }).click();
    assert.deepEqual((await agent.waitFor('cache/delete')).body, { images: ['ubuntu22'] }, 'the image chosen');
    await run('Delete from cache').locator(`tr[data-ip="${ip}"] .result-success`).waitFor();
    assert.deepEqual((await site.s.get('/cache/list', { clients: [ip] })).body.clients[0].images, [], 'the stored cache is empty now');

    await act('reboot', 'Reboot', async () => {
      await dialog.getByText('Reboot 1 client? Its user loses unsaved work.').waitFor();
    });
    await agent.waitFor('reboot');
    await run('Reboot').locator(`tr[data-ip="${ip}"] .outcome-sent`).waitFor();

    const second = await site.connect(site.ips[1]!);
    await clientRow(page, site.ips[1]!).locator('input[type=checkbox]').check();
    // The rebooted PC is off now: the dialog names it and asks before sending.
    await clientRow(page, ip).locator('.state-off').waitFor();
    await act('poweroff', 'Power off', async () => {
      await dialog.locator('[data-at-risk=off]', { hasText: ip }).waitFor();
      await dialog.getByLabel('Send to them anyway').check();
    });
    await second.waitFor('poweroff');
    await run('Power off').locator(`tr[data-ip="${site.ips[1]}"] .outcome-sent`).waitFor();
    await screenshot(page, 'actions');
  } finally {
    await site.close();
  }
});

test('partition and format, fetch an image into the cache, move to another room and delete: each sent as the API takes it', async () => {
  const site = await consoleSite(2);
  try {
    const ip = site.ips[0]!;
    const agent = await site.connect(ip, { configuration: withCachePartition });
    // An image to fetch: created through the API from this client, as the image test does from the console.
    agent.on('image/create', (r) => ({
      body: { ...r.body, filesystem: 'EXT4', datasize: 1048576, size: 1048576, perms: 420, lastupdate: 1664897550 },
    }));
    const created = await site.s.post('/image/create', { clients: [ip], disk: 1, partition: 2, code: 131, id: 0, name: 'ubuntu22' });
    assert.equal(created.status, 200, created.text);
    await eventually(async () => (await site.s.get('/images')).body.images.length === 1, 'image stored');
    agent.on('cache/fetch', (r) => ({ body: { cache: [{ name: r.body.name, size: 1048576, checksum: '' }] } }));
    const other = await site.s.post('/room/add', { center: site.center, name: 'Lab 2', netmask: '255.0.0.0' });
    assert.equal(other.status, 200, other.text);

    const page = await browser.page();
    await signIn(page, site.url);
    await clientRow(page, ip).locator('input[type=checkbox]').check();
    const dialog = page.locator('dialog');
    const run = (title: string) => page.locator('details.run', { has: page.locator('summary strong', { hasText: title }) }).first();

    await page.locator('[data-action=setup]').click();
    const setupButton = dialog.getByRole('button', { name: 'Partition and format' });
    assert.equal(await setupButton.isDisabled(), true, 'not before the erase is acknowledged');
    await dialog.getByLabel('I understand that this erases the disk of 1 client.').check();
    await setupButton.click();
    assert.deepEqual(
      (await agent.waitFor('setup')).body,
      {
        type: 'GPT',
        disk: '1',
        cache: '1',
        cache_size: '20971520',
        partition_setup: [
          { partition: '1', code: 'EFI', filesystem: 'FAT32', size: '524288', format: '1' },
          { partition: '2', code: 'LINUX', filesystem: 'EXT4', size: '41943040', format: '1' },
          { partition: '3', code: 'CACHE', filesystem: 'CACHE', size: '20971520', format: '1' },
        ],
      },
      'the layout in KiB',
    );
    await run('Partition and format').locator(`tr[data-ip="${ip}"] .result-success`).waitFor();

    await page.locator('[data-action=cache]').click();
    await dialog.locator('select[name=image] option', { hasText: 'ubuntu22' }).waitFor({ state: 'attached' });
    await dialog.getByRole('button', { name: 'Fetch into cache' }).click();
    assert.deepEqual((await agent.waitFor('cache/fetch')).body, { name: 'ubuntu22', repository: '127.0.1.250' }, 'from its repository');
    await run('Fetch ubuntu22 into cache').locator(`tr[data-ip="${ip}"] .result-success`).waitFor();
    assert.deepEqual(
      (await site.s.get('/cache/list', { clients: [ip] })).body.clients[0].images.map((i: { name: string }) => i.name),
      ['ubuntu22'],
      'the stored cache lists it',
    );

    await page.locator('[data-action=move]').click();
    await dialog.locator('select[name=room]').selectOption(String(other.body.id));
    await dialog.getByRole('button', { name: 'Move', exact: true }).click();
    await eventually(async () => (await site.s.get('/client/info', { client: [ip] })).body.room === other.body.id, 'moved');
    await groupRow(page, 'Lab 2').waitFor();

    await clientRow(page, ip).locator('input[type=checkbox]').check();
    await page.locator('[data-action=delete]').click();
    await dialog.getByText('Delete 1 client from the inventory? Its boot files are deleted too.').waitFor();
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await eventually(async () => (await site.s.get('/client/info', { client: [ip] })).status === 400, 'deleted');
    await clientRow(page, ip).waitFor({ state: 'detached' });
  } finally {
    await site.close();
  }
});

test("an agent's state change shows in the tree without a reload", async () => {
  const site = await consoleSite(1);
  try {
    const page = await browser.page();
    let navigations = 0;
    page.on('framenavigated', () => navigations++);
    await signIn(page, site.url);
    const row = clientRow(page, site.ips[0]!);
    await row.locator('.state-off').waitFor();
    const loaded = navigations;
    const agent = await site.connect(site.ips[0]!, { mode: 'linux' });
    await row.locator('.state-LNX').waitFor({ timeout: 5000 });
    agent.event('start', 'alice');
    await row.locator('.state-LNXS', { hasText: 'Linux session' }).waitFor({ timeout: 5000 });
    await page.locator('.live', { hasText: 'Updated every 2 s' }).waitFor();
    assert.equal(navigations, loaded, 'no reload');
  } finally {
    await site.close();
  }
});

test.run();
