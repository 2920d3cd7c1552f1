import assert from 'node:assert/strict';
import { test } from 'uvu';
import { AgentLink } from '../../plugins/agents';
import { discovered, discoverPc, lab } from '../plugins/enrol/helpers';
import { type TestBrowser, launchBrowser } from '../support/browser';
import { type FakeAgent, eventually } from '../support/fake-agent';
import { consolePlugins, consoleSite, signIn } from './site';

let browser: TestBrowser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after(async () => {
  await browser.close();
});

const macs = ['52:54:00:00:09:51', '52:54:00:00:09:52', '52:54:00:00:09:53'];

test('New PCs: the dashboard lists them; the page shows their hardware, previews their names and puts the selected in a room; one is forgotten', async () => {
  const site = await consoleSite(1, {
    plugins: [...new Set([...consolePlugins, 'transfers', 'enrol'])],
    boot: { unknown_client: { [`${lab}.0/24`]: 'discover' } },
  });
  const agents: FakeAgent[] = [];
  try {
    const models = ['Dell Inc. OptiPlex 7090', 'Dell Inc. OptiPlex 7090', 'HP EliteDesk 800 G6'];
    for (const [i, mac] of macs.entries())
      agents.push(
        await discoverPc(site.s, site.s.app.container.resolve(AgentLink).port(), {
          mac,
          ip: `${lab}.${10 + i}`,
          model: models[i],
          serial: `SN${i}`,
        }),
      );
    const page = await browser.page();
    await signIn(page, site.url);

    await page.getByRole('link', { name: 'Dashboard', exact: true }).click();
    const onDashboard = page.locator('section[data-new-pcs="3"]');
    await onDashboard.waitFor();
    assert.equal(await onDashboard.getByRole('heading').innerText(), '3 new PCs wait for a room');
    assert.equal(
      await onDashboard.locator('li[data-mac]').first().innerText(),
      `HP EliteDesk 800 G6 (${macs[2]}, ${lab}.12)`,
      'the newest first',
    );
    await onDashboard.getByRole('link', { name: 'Put them in a room (New PCs)' }).click();

    const view = page.locator('[data-plugin=enrol]');
    const table = view.locator('table[data-enrol=discovered]');
    await table.waitFor();
    assert.equal(await table.locator('caption').innerText(), '3 new PCs');
    const row = (mac: string) => table.locator(`tr[data-mac="${mac}"]`);
    assert.match(
      await row(macs[0]!).innerText(),
      /Dell Inc\. OptiPlex 7090\s+Intel Core i5-10500 @ 3\.10GHz\s+Samsung 8GiB DDR4, Samsung 8GiB DDR4\s+477 GiB\s+SN0/,
    );
    // A MAC opens its components.
    await row(macs[2]!).getByRole('button', { name: macs[2] }).click();
    await view.locator(`tr[data-details="${macs[2]}"] li`, { hasText: 'WDC PC SN530 512GB' }).waitFor();

    // The two Dells into the room: a preview first, then for real.
    await view.getByLabel(`Select ${macs[0]}`).check();
    await view.getByLabel(`Select ${macs[1]}`).check();
    await view.getByLabel('Room').selectOption({ label: 'School / Lab 1' });
    await view.getByLabel('Names').fill('lab1-pc{nn}');
    await view.getByRole('button', { name: 'Preview' }).click();
    const planned = view.locator('table[data-enrol=preview] tbody tr');
    await planned.first().waitFor();
    assert.deepEqual(await planned.allInnerTexts(), [`${macs[0]}\tlab1-pc01\t${lab}.10`, `${macs[1]}\tlab1-pc02\t${lab}.11`]);
    assert.equal((await discovered(site.s)).length, 3, 'a preview writes nothing');

    assert.equal(await view.getByLabel('Disk').isVisible(), false, 'no restore asked: its fields hidden');
    await view.getByLabel('Boot mode').selectOption('ogLive');
    await view.getByRole('button', { name: 'Put them in the room' }).click();
    await view.locator('[role=status]', { hasText: '2 PCs are now clients of School / Lab 1.' }).waitFor();
    await eventually(async () => (await table.locator('tbody tr[data-mac]').count()) === 1, 'one PC left in the list');
    const info = await site.s.get('/client/info', { client: [`${lab}.11`] });
    assert.equal(info.body.name, 'lab1-pc02');
    assert.equal(info.body.boot, 'ogLive');

    // A refusal comes back with its field.
    await view.getByLabel(`Select ${macs[2]}`).check();
    await view.getByLabel('Names').fill('pc{x}');
    await view.getByRole('button', { name: 'Preview' }).click();
    await view.locator('[role=alert]', { hasText: /^names: 'pc\{x\}' has braces that are not/ }).waitFor();

    // The HP is forgotten, switched off first.
    await view.getByLabel('switch them off first').check();
    await view.getByRole('button', { name: 'Forget the selected' }).click();
    await view.locator('[data-enrol=none]').waitFor();
    assert.ok(await agents[2]!.waitFor('poweroff'));
    assert.deepEqual(await discovered(site.s), []);
  } finally {
    for (const agent of agents) agent.destroy();
    await site.close();
  }
});

test('in Spanish, and a PC found again is shown moved? with its client, confirmed from the page', async () => {
  const site = await consoleSite(1, {
    plugins: [...new Set([...consolePlugins, 'transfers', 'enrol'])],
    boot: { unknown_client: { [`${lab}.0/24`]: 'discover' } },
  });
  const agents: FakeAgent[] = [];
  try {
    const client = await site.s.post('/client/update', { id: 1, serial_number: 'CZC-ES-1' });
    assert.equal(client.status, 200, client.text);
    agents.push(
      await discoverPc(site.s, site.s.app.container.resolve(AgentLink).port(), { mac: macs[0]!, ip: `${lab}.20`, serial: 'CZC-ES-1' }),
    );
    const page = await browser.page({ locale: 'es-ES' });
    await signIn(page, site.url);
    await page.getByRole('link', { name: 'Equipos nuevos', exact: true }).click();
    const view = page.locator('[data-plugin=enrol]');
    const moved = view.locator(`tr[data-mac="${macs[0]}"] [data-moved]`);
    await moved.waitFor();
    assert.equal(await moved.getAttribute('data-moved'), site.ips[0]);
    assert.match(await moved.innerText(), /¿Movido\? Su número de serie es el de pc01 \(127\.0\.1\.1\)\./);
    await moved.getByRole('button', { name: 'Es ese equipo' }).click();
    await view.locator('[role=status]', { hasText: 'pc01 confirmado' }).waitFor();
    await view.locator('[data-enrol=none]').waitFor();
    assert.equal((await site.s.get('/client/info', { client: [site.ips[0]] })).body.mac, '525400000951');
  } finally {
    for (const agent of agents) agent.destroy();
    await site.close();
  }
});

test.run();
