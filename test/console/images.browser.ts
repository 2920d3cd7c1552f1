import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { test } from 'uvu';
import { ImagesConfig } from '../../plugins/images';
import { type TestBrowser, launchBrowser, screenshot, seriousViolations } from '../support/browser';
import { eventually } from '../support/fake-agent';
import { macFor } from '../support/fixtures';
import { consoleSite, signIn } from './site';

let browser: TestBrowser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after(async () => {
  await browser.close();
});

/** GET an image file as a PC's restore script does; with `stopAt`, the PC goes after that many bytes. */
function fetchAs(port: number, urlPath: string, stopAt = Number.POSITIVE_INFINITY): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: urlPath, agent: false }, (res) => {
        let got = 0;
        res.on('data', (chunk: Buffer) => {
          got += chunk.length;
          if (got >= stopAt) {
            res.destroy();
            resolve(got);
          }
        });
        res.on('end', () => resolve(got));
        res.on('error', () => resolve(got));
      })
      .on('error', reject);
  });
}

/** An image in the site's repository, made by its first PC's agent as the real one does. */
async function makeImage(site: Awaited<ReturnType<typeof consoleSite>>, name: string, bytes: Buffer): Promise<number> {
  const directory = site.s.app.config.section('repository', ImagesConfig).directory;
  const ip = site.ips[0]!;
  const agent = await site.connect(ip);
  agent.on('image/create', (request) => {
    mkdirSync(directory, { recursive: true });
    writeFileSync(path.join(directory, `${name}.img`), bytes);
    const b = request.body;
    return {
      body: {
        ...b,
        software: 'Debian 12\n',
        clonator: 'partclone',
        compressor: 'lzop',
        filesystem: 'EXT4',
        datasize: bytes.length,
        size: bytes.length,
      },
    };
  });
  assert.equal((await site.s.post('/image/create', { clients: [ip], disk: '1', partition: '1', code: '131', name, id: '0' })).status, 200);
  const image = await eventually(
    async () => (await site.s.get('/images')).body.images.find((i: any) => i.name === name && i.state === 'available'),
    'the image hashed',
  );
  return image.id;
}

test("a restore's job page draws a bar per PC from its transfers: done, cut short, and moving on as a PC resumes", async () => {
  const site = await consoleSite(3);
  try {
    const bytes = Buffer.alloc(3 * 1024 * 1024, 7);
    const image = await makeImage(site, 'lab', bytes);
    const [, first, second] = site.ips as [string, string, string];
    for (const ip of [first, second]) (await site.connect(ip)).on('image/restore', { none: true });
    const restore = await site.s.post('/image/restore', {
      clients: [first, second],
      disk: '1',
      partition: '1',
      id: String(image),
      type: 'UNICAST',
    });
    assert.equal(restore.status, 200, restore.text);
    const job = restore.body.job as number;
    // The PCs' scripts fetch the image with their MACs (2 and 3 in the site's order).
    const url = (n: number) => `/images/files/lab.img?mac=${macFor(n)}`;
    assert.equal(await fetchAs(site.s.port, url(2)), bytes.length);
    const cut = await fetchAs(site.s.port, url(3), 1024 * 1024);

    const page = await browser.page();
    await signIn(page, site.url);
    await page.goto(`${site.url}/console/#/job/${job}`);
    const bar = (ip: string) => page.locator(`.transfer-bars li[data-client="${ip}"]`);
    await bar(first).and(page.locator('[data-done=true]')).waitFor();
    await bar(second).and(page.locator('[data-done=false]')).waitFor();
    assert.equal(Number(await bar(first).locator('progress').getAttribute('value')), bytes.length, 'the first PC got it all');
    assert.match(await bar(second).innerText(), /cut short/, 'the second was cut');
    assert.ok(Number(await bar(second).locator('progress').getAttribute('value')) >= cut - 1);
    await screenshot(page, 'image-transfers');

    // The second PC resumes where it stopped: its bar moves on while the page is open.
    await new Promise<void>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port: site.s.port, path: url(3), headers: { Range: `bytes=${cut}-` }, agent: false }, (res) => {
          res.resume();
          res.on('end', () => resolve());
        })
        .on('error', reject);
    });
    await bar(second).and(page.locator('[data-done=true]')).waitFor();
    assert.deepEqual(await seriousViolations(page), [], 'the job page passes axe-core');
  } finally {
    await site.close();
  }
});

test('the images page shows a damaged image, the dashboard counts it; a deleted image is recovered from the trash', async () => {
  const site = await consoleSite(1);
  try {
    const directory = site.s.app.config.section('repository', ImagesConfig).directory;
    const image = await makeImage(site, 'win', Buffer.alloc(100_000, 3));
    writeFileSync(path.join(directory, 'win.img'), Buffer.alloc(100_000, 4));
    assert.equal((await site.s.post('/image/check', { id: image })).body.state, 'damaged');

    const page = await browser.page();
    await signIn(page, site.url);
    await page.getByRole('link', { name: 'Dashboard', exact: true }).click();
    await page.locator('[data-attention=damaged]').waitFor();
    assert.match(await page.locator('[data-attention=damaged]').innerText(), /Damaged images: 1/);
    await page.locator('[data-attention=damaged] button').click();
    const row = page.locator('tr[data-image=win]');
    await row.locator('[data-state=damaged]').waitFor();
    // Repaired: the check from the page finds it right again.
    writeFileSync(path.join(directory, 'win.img'), Buffer.alloc(100_000, 3));
    await row.getByRole('button', { name: 'Check' }).click();
    await row.locator('[data-state=available]').waitFor();

    await row.getByRole('button', { name: 'Delete' }).click();
    await page.locator('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.locator('tr[data-trashed=win]').waitFor();
    await page.locator('tr[data-trashed=win]').getByRole('button', { name: 'Recover' }).click();
    await row.waitFor();
    await page.locator('tr[data-trashed=win]').waitFor({ state: 'detached' });
    await screenshot(page, 'images');
    assert.deepEqual(await seriousViolations(page), [], 'the images page passes axe-core');
  } finally {
    await site.close();
  }
});

test.run();
