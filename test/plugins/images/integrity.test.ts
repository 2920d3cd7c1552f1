import 'reflect-metadata';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { container } from 'tsyringe';
import { test } from 'uvu';
import { ImagesClock } from '../../../plugins/images';
import { ManualClock } from '../../../testing';
import { eventually } from '../../support/fake-agent';
import { send } from '../../support/server';
import { createAnswer, imageSite, type ImageSite } from './helpers';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

/** Bytes an image file holds in these tests: not all alike, so a flipped byte shows. */
function imageBytes(size: number, seed = 1): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed * 7 + (i >> 8)) & 255;
  return bytes;
}

/**
 * An image created by the fake agent as the real one does: `<name>.img` and its md5 in
 * `<name>.img.full.sum` written into the repository before it answers, then its answer.
 */
async function createImage(x: ImageSite, name: string, bytes: Buffer, answer: Record<string, unknown> = {}): Promise<any> {
  const ip = x.ips[0]!;
  const agent = x.agents[0] ?? (await x.connect(ip));
  agent.on('image/create', (request) => {
    mkdirSync(x.directory, { recursive: true });
    writeFileSync(path.join(x.directory, `${name}.img`), bytes);
    writeFileSync(path.join(x.directory, `${name}.img.full.sum`), `${md5(bytes)}\n`);
    const { checksum: _agentSum, ...body } = createAnswer(request, { size: bytes.length, ...answer });
    return { body };
  });
  const r = await x.s.post('/image/create', { clients: [ip], disk: '1', partition: '2', code: '131', name, id: '0' });
  assert.equal(r.status, 200, r.text);
  const entry = await x.settled(ip);
  const image = (await x.images()).find((i) => i.name === name);
  assert.ok(image, `image ${name} stored`);
  return { image, entry, job: r.body.job };
}

test('after a create ogserve hashes the file itself: sha256, size and the agent md5 kept, the image available', async () => {
  const x = await imageSite();
  try {
    const bytes = imageBytes(3 * 1024 * 1024 + 17);
    const { image, entry } = await createImage(x, 'lab', bytes);
    assert.equal(entry.last_cmd.result, 'success', 'the create succeeded');
    assert.deepEqual(
      [image.state, image.sha256, image.size, image.checksum, image.damage],
      ['available', sha256(bytes), bytes.length, md5(bytes), ''],
      "the record holds the file's sha256, its size and the agent's md5 from .full.sum",
    );
    assert.ok(Date.parse(image.checked) > 0, `checked is a time: ${image.checked}`);
    await eventually(
      () => x.s.logs.find((l) => new RegExp(`^image 'lab' \\(id ${image.id}\\) created from ${x.ips[0]} in \\d+\\.\\d s$`).test(l.msg)),
      'the create logged as done',
    );
  } finally {
    await x.close();
  }
});

test('a create whose file is not what the agent said is damaged, and the command failed', async () => {
  const x = await imageSite();
  try {
    const events: any[] = [];
    x.s.app.events.onAny((name, payload) => {
      if (name === 'image.damaged') events.push(payload);
    });
    const bytes = imageBytes(100_000);
    const { image, entry } = await createImage(x, 'short', bytes, { size: 200_000 });
    assert.equal(entry.last_cmd.result, 'failure', 'the command failed: its file is not what the agent said');
    assert.equal(image.state, 'damaged', 'the image is damaged');
    assert.match(image.damage, /the agent said 200000 bytes, the file has 100000/, image.damage);
    assert.deepEqual(events, [{ image: image.id, name: 'short', reason: image.damage }], 'image.damaged announced');
    const jobs = await x.s.get('/jobs?kind=image/create');
    assert.equal(jobs.body.jobs[0].states.failed, 1, 'its job says the PC failed');
  } finally {
    await x.close();
  }
});

test('POST /image/check finds a flipped byte, a truncated and a missing file; a damaged image is not restored nor served, and is back once repaired', async () => {
  const x = await imageSite();
  try {
    const bytes = imageBytes(1024 * 1024);
    const { image } = await createImage(x, 'win', bytes);
    const file = path.join(x.directory, 'win.img');
    const check = async () => {
      const r = await x.s.post('/image/check', { id: image.id });
      assert.equal(r.status, 200, r.text);
      return r.body;
    };
    assert.deepEqual(
      await check(),
      { image: image.id, name: 'win', state: 'available', damage: '', sha256: sha256(bytes), size: bytes.length, held: true },
      'an untouched file checks good',
    );

    const flipped = Buffer.from(bytes);
    flipped[500_000] = flipped[500_000]! ^ 1;
    writeFileSync(file, flipped);
    const changed = await check();
    assert.equal(changed.state, 'damaged', 'a flipped byte is found');
    assert.match(changed.damage, /^changed: the file's sha256 is [0-9a-f]{64}, the record's [0-9a-f]{64}$/, changed.damage);
    const restore = { clients: [x.ips[0]], disk: '1', partition: '2', id: String(image.id), type: 'UNICAST' };
    const refused = await x.s.post('/image/restore', restore);
    assert.equal(refused.status, 400, refused.text);
    assert.deepEqual([refused.body.error, refused.body.field], ['image_damaged', 'id'], 'the restore is refused naming the image');
    assert.match(refused.body.message, /image 'win' \(id \d+\) is damaged: changed/, refused.body.message);
    const served = await send(x.s.port, 'GET', '/images/files/win.img');
    assert.equal(served.status, 500, 'a damaged image is not served');
    assert.equal(served.body.error, 'file_damaged');

    writeFileSync(file, bytes);
    truncateSync(file, 1000);
    const truncated = await check();
    assert.deepEqual(
      [truncated.state, truncated.damage],
      ['damaged', `truncated: the file has 1000 bytes, the record ${bytes.length}`],
      'a truncated file is found',
    );
    rmSync(file);
    assert.deepEqual([(await check()).state, (await check()).damage], ['damaged', 'missing'], 'a missing file is found');

    writeFileSync(file, bytes);
    assert.equal((await check()).state, 'available', 'the right bytes back: available again');
    const [listed] = await x.images();
    assert.deepEqual([listed.state, listed.damage], ['available', ''], 'GET /images says so');
    assert.equal((await x.s.post('/image/restore', restore)).status, 200, 'and it is restored again');
    const unknown = await x.s.post('/image/check', { id: 999 });
    assert.deepEqual([unknown.status, unknown.body.field], [400, 'id'], 'an unknown image is named');
  } finally {
    await x.close();
  }
});

test('the periodic check, every repository.check_every_h hours, finds a changed file', async () => {
  const clock = new ManualClock(Date.parse('2026-12-01T10:00:00Z'));
  const parent = container.createChildContainer();
  parent.register(ImagesClock, { useValue: clock });
  const x = await imageSite(1, {}, { container: parent });
  try {
    const bytes = imageBytes(200_000);
    await createImage(x, 'nightly', bytes);
    const flipped = Buffer.from(bytes);
    flipped[7] = flipped[7]! ^ 0x80;
    writeFileSync(path.join(x.directory, 'nightly.img'), flipped);
    await clock.advance(23 * 3600 * 1000);
    assert.equal((await x.images())[0].state, 'available', 'not checked before its time');
    await clock.advance(3600 * 1000);
    const [checked] = await x.images();
    assert.equal(checked.state, 'damaged', 'the check after 24 h found it');
    assert.equal(checked.checked, new Date(clock.now()).toISOString().replace(/\.\d+Z$/, '.000Z'), 'checked at the clock time');
    assert.ok(
      x.s.logs.some((l) => l.msg === '1 image(s) checked: 1 damaged (nightly)'),
      'the check is summed up in one log line',
    );
  } finally {
    await x.close();
  }
});

test('GET /images/files: only recorded files, with ranges and Repr-Digest; each PC its bytes, tied to its restore job', async () => {
  const x = await imageSite(2);
  try {
    const bytes = imageBytes(2 * 1024 * 1024 + 5);
    const { image } = await createImage(x, 'pc', bytes);
    const digest = `sha-256=:${createHash('sha256').update(bytes).digest('base64')}:`;
    const whole = await fetchBytes(x.s.port, '/images/files/pc.img?mac=000000000001');
    assert.equal(whole.status, 200);
    assert.ok(whole.body.equals(bytes), 'the whole file');
    assert.equal(whole.headers['repr-digest'], digest, "Repr-Digest carries the record's sha256");
    assert.ok(whole.headers.etag, 'an ETag');
    const part = await fetchBytes(x.s.port, '/images/files/pc.img?mac=000000000002', { Range: 'bytes=1000-' });
    assert.equal(part.status, 206);
    assert.ok(part.body.equals(bytes.subarray(1000)), 'a range from byte 1000');
    assert.equal(part.headers['repr-digest'], digest, 'a range carries the whole file digest');
    const sum = await fetchBytes(x.s.port, '/images/files/pc.img.full.sum');
    assert.equal(sum.body.toString().trim(), md5(bytes), 'the agent md5 companion is served');

    mkdirSync(x.directory, { recursive: true });
    writeFileSync(path.join(x.directory, 'stray.img'), 'not an image of the repository');
    for (const p of ['stray.img', 'pc.img.bak', '..%2fpc.img', 'pc@v1.img', '.trash/pc.img']) {
      const r = await send(x.s.port, 'GET', `/images/files/${p}`);
      assert.ok(r.status === 404 || r.status === 400, `${p}: ${r.status} ${r.text}`);
    }

    const lines = (await x.s.get('/images/transfers')).body.transfers;
    const first = lines.find((l: any) => l.client === x.ips[0]);
    assert.deepEqual(
      [first.file, first.image, first.bytes, first.size, first.done, first.cut_short, first.job],
      ['pc.img', image.id, bytes.length, bytes.length, true, false, null],
      'the PC its mac= names got the whole file',
    );
    const second = lines.find((l: any) => l.client === x.ips[1]);
    assert.deepEqual([second.bytes, second.done], [bytes.length, true], 'a range to the end finishes the file too');

    // A restore job: its PCs' next transfers are tied to it.
    await x.connect(x.ips[1]!);
    const restore = await x.s.post('/image/restore', {
      clients: [x.ips[1]],
      disk: '1',
      partition: '2',
      id: String(image.id),
      type: 'UNICAST',
    });
    const job = restore.body.job;
    assert.ok(Number.isInteger(job), restore.text);
    const cut = await fetchBytes(x.s.port, '/images/files/pc.img?mac=00:00:00:00:00:02', {}, 300_000);
    assert.ok(cut.body.length >= 300_000 && cut.body.length < bytes.length, `the PC stopped reading at ${cut.body.length}`);
    const cutLine = await eventually(async () => {
      const [l] = (await x.s.get(`/images/transfers?job=${job}`)).body.transfers;
      return l?.ended ? l : undefined;
    }, 'the cut transfer ended');
    assert.deepEqual([cutLine.client, cutLine.done, cutLine.cut_short], [x.ips[1], false, true], 'a cut transfer is not done');
    const resumed = await fetchBytes(x.s.port, '/images/files/pc.img?mac=000000000002', { Range: `bytes=${cutLine.bytes}-` });
    assert.equal(resumed.status, 206);
    const [done] = (await x.s.get(`/images/transfers?job=${job}`)).body.transfers;
    assert.deepEqual(
      [done.bytes, done.size, done.done, done.bodies],
      [bytes.length, bytes.length, true, 2],
      'resumed to the end: done, in two bodies',
    );
    assert.equal((await x.s.get('/images/transfers?job=x')).status, 400, 'a bad job id is named');
  } finally {
    await x.close();
  }
});

/** GET a path; `stopAt` bytes read, the connection is dropped (a PC cut off). */
function fetchBytes(
  port: number,
  urlPath: string,
  headers: Record<string, string> = {},
  stopAt = Number.POSITIVE_INFINITY,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: urlPath, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let got = 0;
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        got += chunk.length;
        if (got >= stopAt) {
          res.destroy();
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) });
        }
      });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', () => undefined);
    });
    req.on('error', reject);
  });
}

test.run();
