// System needs: udpcast
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { ImageStore, ImagesConfig } from '../../plugins/images';
import { type TestBrowser, launchBrowser, screenshot, seriousViolations } from '../support/browser';
import { answerBytes } from '../support/fake-agent';
import { startLab } from '../support/lab';
import { makeLoopbackNamespace } from '../support/netns';
import { clientRow, consolePlugins, signIn } from './site';

let browser: TestBrowser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after(async () => {
  await browser.close();
});

/**
 * The console's side of a multicast restore: the restore form offers MULTICAST where the
 * plugin is on, and the job's page shows its session (joined of expected, rate, each PC's
 * part), cancels it, and sends the image again by unicast to the PCs it did not reach. The
 * sender runs in a namespace of the test's; the one PC, 127.0.0.1, receives on its loopback.
 */
test('a multicast restore from the fleet: its job page shows the session and each PC; cancel, then send the image again by unicast', async () => {
  const ns = makeLoopbackNamespace();
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-mcast-ui-'));
  const receivers: ChildProcess[] = [];
  const wrapper = path.join(dir, 'udp-sender');
  writeFileSync(wrapper, `#!/bin/sh\nexec ip netns exec ${ns.name} udp-sender "$@"\n`);
  chmodSync(wrapper, 0o755);
  const multicast = { udp_sender: wrapper, directory: path.join(dir, 'multicast'), max_bitrate: '50m', max_wait_s: 600 };
  const lab = await startLab({
    ips: ['127.0.0.1'],
    netmask: '255.0.0.0',
    server: { config: { plugins: [...consolePlugins, 'multicast'], multicast } },
    async prepare(s) {
      const listed = (await s.get('/repositories')).body.repositories as { id: number; ip: string }[];
      return { repo_id: listed.find((r) => r.ip === '127.0.0.1')!.id };
    },
  }).catch((error: unknown) => {
    ns.remove();
    throw error;
  });
  try {
    const directory = lab.s.app.config.section('repository', ImagesConfig).directory;
    mkdirSync(directory, { recursive: true });
    writeFileSync(path.join(directory, 'lab.img'), randomFillSync(Buffer.alloc(4_000_000)));
    await lab.s.app.container.resolve(ImageStore).saveCapture({
      ...{ name: 'lab', repositoryId: 1, clientId: 0, disk: 1, partition: 2, code: 131, size: 4_000_000n, datasize: 4_000_000n },
      ...{ checksum: '', permissions: '644', lastUpdate: 0n, clonator: 'partclone', compressor: 'lzop', filesystem: 'EXT4' },
    });
    const agent = await lab.connect('127.0.0.1');
    let receive = true;
    agent.on(
      'image/restore',
      (request) => {
        const body = { disk: request.body.disk, partition: request.body.partition, image_id: request.body.id };
        const [, port] = /^MULTICAST:(\d+)$/.exec(request.body.type) ?? [];
        if (!port) return { body };
        if (!receive) return { none: true };
        const args = ['--portbase', port, '--nokbd', '--interface', 'lo', '--file', path.join(dir, 'pc.img')];
        const receiver = ns.spawnIn(ns.name, 'udp-receiver', args, { stdio: 'ignore' });
        receivers.push(receiver);
        receiver.once('exit', (code) => agent.write(code === 0 ? answerBytes(200, body) : answerBytes(500, {})));
        return { none: true };
      },
      true,
    );

    const page = await browser.page();
    await signIn(page, `http://127.0.0.1:${lab.s.port}`);
    await clientRow(page, '127.0.0.1').locator('input[type=checkbox]').check();
    await page.locator('[data-action=restore-image]').click();
    const dialog = page.locator('dialog');
    await dialog.locator('select[name=id] option', { hasText: 'lab' }).waitFor({ state: 'attached' });
    // The partition by name, from the PC's own setup (the fake agent's: disk 1, partitions 1 and 2).
    await dialog.locator('select[name=partition] option[value="1:2"]').waitFor({ state: 'attached' });
    await dialog.locator('select[name=partition]').selectOption('1:2');
    await dialog.locator('select[name=type]').selectOption('MULTICAST');
    await dialog.getByLabel(/I understand/).check();
    await dialog.getByRole('button', { name: 'Restore image' }).click();
    const link = page.locator('details.run a.job-link');
    await link.waitFor();
    await link.click();

    const session = page.locator('.multicast-session');
    await session.and(page.locator('[data-state=done]')).waitFor({ timeout: 30_000 });
    await session.locator('tr[data-ip="127.0.0.1"][data-state=done]', { hasText: 'Received it all' }).waitFor();
    assert.match(await session.locator('h2').innerText(), /^Multicast session \d+, Room: done$/);
    assert.match(await session.innerText(), /1 of 1 PCs joined, 0 dropped, .*\/s, from 127\.0\.0\.1:9\d{3}\./);
    await page.locator('table.grid tr[data-ip="127.0.0.1"][data-state=done]').first().waitFor();
    await screenshot(page, 'job-multicast');
    assert.deepEqual(await seriousViolations(page), [], 'the job page with its session passes axe-core');

    // A session nobody joins (the PC's ogLive never starts its receiver): cancelled from the page.
    receive = false;
    const again = await lab.s.post('/image/restore', { clients: ['127.0.0.1'], disk: '1', partition: '2', id: '1', type: 'MULTICAST' });
    assert.equal(again.status, 200, again.text);
    await page.goto(`http://127.0.0.1:${lab.s.port}/console/#/job/${again.body.job}`);
    await session.and(page.locator('[data-state=waiting]')).waitFor();
    await page.getByRole('button', { name: 'Cancel the session' }).click();
    await session.and(page.locator('[data-state=cancelled]')).waitFor();
    agent.write(answerBytes(500, {}));
    await lab.settled('127.0.0.1');
    await page.getByRole('button', { name: 'Send the image again by unicast to the PC it did not reach' }).click();
    await page.locator('h1', { hasText: `Job ${again.body.job + 1}: Restore image` }).waitFor();
    await page.locator('table.grid tr[data-ip="127.0.0.1"][data-state=done]').waitFor();
    assert.equal(await page.locator('.multicast-session').count(), 0, 'a unicast restore has no session');
    assert.equal((await agent.waitFor('image/restore', 2)).body.type, 'UNICAST');
  } finally {
    for (const r of receivers) r.kill('SIGKILL');
    await lab.close();
    ns.remove();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
