// Engine-independent: runs once, on SQLite.
// (two real ogserve instances and the command line.)
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { eventually } from '../../support/fake-agent';
import { mainScript, ogserve, runNode } from '../../support/process';
import { makeTestDir, removeTestStore, startServer, type TestServer } from '../../support/server';
import { createAnswer, imageSite, type ImageSite } from './helpers';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

/** What a pull may read per second in these tests: slow enough to cut one in the middle. */
const rate = 1024 * 1024;
const size = 4 * 1024 * 1024 + 123;

/** The source site's image `name`, made by its fake agent as the real one writes it. */
async function sourceImage(src: ImageSite, name: string, bytes: Buffer): Promise<any> {
  const ip = src.ips[0]!;
  const agent = src.agents[0] ?? (await src.connect(ip));
  agent.on('image/create', (request) => {
    mkdirSync(src.directory, { recursive: true });
    writeFileSync(path.join(src.directory, `${name}.img`), bytes);
    writeFileSync(path.join(src.directory, `${name}.img.full.sum`), md5(bytes));
    return { body: createAnswer(request, { size: bytes.length, checksum: md5(bytes) }) };
  });
  assert.equal((await src.s.post('/image/create', { clients: [ip], disk: '1', partition: '2', code: '131', name, id: '0' })).status, 200);
  await src.settled(ip);
  const image = (await src.images()).find((i) => i.name === name);
  assert.equal(image?.sha256, sha256(bytes), 'the source hashed it');
  return image;
}

/** A destination site (its one repository, the one a fresh site starts with), pulls slowed to `rate`. */
function destination(dir?: string): Promise<TestServer> {
  return startServer({ dir, config: { repository: { pull_max_bytes_per_s: rate } } });
}

async function pullState(dest: TestServer, name: string, state: string): Promise<any> {
  return (await eventually(
    async () => {
      const pull = (await dest.get('/image/pulls')).body.pulls.find((p: any) => p.name === name);
      return pull?.state === state ? pull : undefined;
    },
    `pull of ${name} ${state}`,
    60_000,
  ))!;
}

/** `ogserve image pull` as a child process, SIGKILLed once its partial file holds more than a MiB; the bytes it kept. */
async function killedPull(url: string, name: string, config: string, part: string): Promise<number> {
  const run = runNode(mainScript, ['image', 'pull', url, '--name', name, '--config', config]);
  await eventually(() => existsSync(part) && statSync(part).size > rate, 'a first MiB pulled', 30_000);
  await run.kill();
  const kept = statSync(part).size;
  assert.ok(kept > 0 && kept < size, `the killed pull left ${kept} bytes of ${size}`);
  return kept;
}

test('ogserve image pull: killed in the middle it resumes; the source changed under it, it starts again; kept only with the source record sha256', async () => {
  const src = await imageSite();
  const dir = makeTestDir();
  try {
    const sent: number[] = [];
    src.s.app.events.onAny((event, payload: any) => {
      if (event === 'image.transfer') sent.push(payload.bytes);
    });
    const bytes = randomBytes(size);
    await sourceImage(src, 'win', bytes);
    const url = `http://127.0.0.1:${src.s.port}/images/files/win.img`;
    await (await destination(dir)).close();
    const config = path.join(dir, 'config.json');
    const pulling = path.join(dir, 'images', '.pull');

    // Killed, then run again: it asks for the rest only.
    const kept = await killedPull(url, 'win', config, path.join(pulling, 'win.img.part'));
    sent.length = 0;
    const again = await ogserve(['image', 'pull', url, '--name', 'win', '--config', config]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, new RegExp(`pull resumed at byte ${kept} of ${size}`), 'it resumed where the part ended');
    assert.match(again.stderr, /pulled win \(image \d+\) from .*, its sha256 checked/);
    // (The killed transfer's own end may be heard at the source after the kill: the rest is a body of its own.)
    await eventually(() => sent.includes(size - kept), 'the source sent only the rest');

    // Killed, the source's image created again meanwhile: the rest of the old file is never asked for.
    const other = randomBytes(size);
    await sourceImage(src, 'lab', bytes);
    const labUrl = url.replace('win.img', 'lab.img');
    await killedPull(labUrl, 'lab', config, path.join(pulling, 'lab.img.part'));
    await sourceImage(src, 'lab', other);
    const changed = await ogserve(['image', 'pull', labUrl, '--name', 'lab', '--config', config]);
    assert.equal(changed.code, 0, changed.stderr);
    assert.match(changed.stderr, /the source's file changed: the pull starts again from byte 0/);

    const dest = await destination(dir);
    try {
      const images = (await dest.get('/images')).body.images;
      assert.deepEqual(
        images.map((i: any) => [i.name, i.sha256, i.size, i.state, i.checksum]),
        [
          ['win', sha256(bytes), size, 'available', md5(bytes)],
          ['lab', sha256(other), size, 'available', md5(other)],
        ],
        'each a record of its own, available, with the bytes the source has now',
      );
      assert.ok(readFileSync(path.join(dir, 'images', 'win.img')).equals(bytes), 'the same bytes');
      assert.ok(readFileSync(path.join(dir, 'images', 'lab.img')).equals(other), 'the new bytes');
      assert.equal(readFileSync(path.join(dir, 'images', 'win.img.full.sum'), 'utf8').trim(), md5(bytes), 'its .full.sum for the agents');
      assert.ok(!existsSync(path.join(pulling, 'win.img.part')), 'no partial file left');
      const twice = await dest.post('/image/pull', { url, name: 'win' });
      assert.deepEqual([twice.status, twice.body.field], [400, 'name'], 'a name taken here is refused');
      assert.match(twice.body.message, /an image named 'win' exists here/);
    } finally {
      await dest.close();
    }
  } finally {
    await src.close();
    await removeTestStore(dir);
  }
});

test('POST /image/pull: a flipped byte, a truncated file at the source: each refused, never kept, and pulled again once right', async () => {
  const src = await imageSite();
  const dest = await startServer();
  try {
    const bytes = randomBytes(size);
    await sourceImage(src, 'lab', bytes);
    const file = path.join(src.directory, 'lab.img');
    const url = `http://127.0.0.1:${src.s.port}/images/files/lab.img`;
    const start = async () => {
      const r = await dest.post('/image/pull', { url, name: 'lab' });
      assert.equal(r.status, 200, r.text);
      return r.body;
    };
    const destImages = async () => (await dest.get('/images')).body.images;

    assert.equal((await start()).state, 'running');
    const done = await pullState(dest, 'lab', 'done');
    const [pulled] = await destImages();
    assert.deepEqual([pulled.id, pulled.sha256, pulled.state], [done.image, sha256(bytes), 'available'], 'pulled: the same bytes');
    assert.equal((await dest.post('/image/delete', { image: String(pulled.id) })).status, 200);
    const second = bytes;

    // A flipped byte the source has not checked yet: served, but not what its record says.
    const flipped = Buffer.from(second);
    flipped[size - 10] = flipped[size - 10]! ^ 1;
    writeFileSync(file, flipped);
    await start();
    const refused = await pullState(dest, 'lab', 'failed');
    assert.match(
      refused.error,
      /the bytes fetched differ from the source's record \(sha256 [0-9a-f]{64}, 4194427 bytes; the source says [0-9a-f]{64}/,
    );
    assert.deepEqual(await destImages(), [], 'nothing kept');
    assert.ok(!existsSync(path.join(dest.dir, 'images', '.pull', 'lab.img.part')), 'the different bytes are not kept to resume from');

    // Truncated at the source: it refuses to serve it as whole; the pull says so.
    writeFileSync(file, second);
    truncateSync(file, 1000);
    await start();
    const truncated = await pullState(dest, 'lab', 'failed');
    assert.match(
      truncated.error,
      /the source answered 500: lab\.img is not served: the file has 1000 bytes, its record 4194427/,
      truncated.error,
    );

    // Repaired at the source: pulled again, whole and right.
    writeFileSync(file, second);
    await start();
    await pullState(dest, 'lab', 'done');
    assert.equal((await destImages())[0].sha256, sha256(second));
    const bad = await dest.post('/image/pull', { url: 'ftp://x/y.img', name: 'x' });
    assert.deepEqual([bad.status, bad.body.field], [400, 'url'], 'a URL that is no image file is named');
  } finally {
    await dest.close();
    await src.close();
  }
});

test.run();
