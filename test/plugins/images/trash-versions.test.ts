import 'reflect-metadata';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { container } from 'tsyringe';
import { test } from 'uvu';
import { ImagesClock } from '../../../plugins/images';
import { ManualClock } from '../../../testing';
import { eventually } from '../../support/fake-agent';
import { send } from '../../support/server';
import { createAnswer, imageSite, type ImageSite } from './helpers';

const md5 = (bytes: Buffer | string) => createHash('md5').update(bytes).digest('hex');
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** A site whose images clock is a ManualClock. */
async function clockedSite(config: Record<string, unknown>): Promise<{ x: ImageSite; clock: ManualClock }> {
  const clock = new ManualClock(Date.parse('2026-12-01T10:00:00Z'));
  const parent = container.createChildContainer();
  parent.register(ImagesClock, { useValue: clock });
  return { x: await imageSite(1, { repository: config }, { container: parent }), clock };
}

/** The fake agent writes `<name>.img` with `text` and its md5, then answers 200 (or `status`). */
async function create(x: ImageSite, name: string, text: string, status = 200): Promise<void> {
  const ip = x.ips[0]!;
  const agent = x.agents[0] ?? (await x.connect(ip));
  agent.on('image/create', (request) => {
    mkdirSync(x.directory, { recursive: true });
    writeFileSync(path.join(x.directory, `${name}.img`), text);
    writeFileSync(path.join(x.directory, `${name}.img.full.sum`), md5(text));
    if (status !== 200) return { status };
    return { body: createAnswer(request, { size: text.length, checksum: md5(text) }) };
  });
  const r = await x.s.post('/image/create', { clients: [ip], disk: '1', partition: '2', code: '131', name, id: '0' });
  assert.equal(r.status, 200, r.text);
  await x.settled(ip);
}

test('a deleted image waits in the trash: listed, recovered whole (record, id, centers, files), or gone after trash_days', async () => {
  const { x, clock } = await clockedSite({ trash_days: 7 });
  try {
    await create(x, 'keep', 'first image');
    const [image] = await x.images();
    await x.s.post('/image/restrict', { image: image.id, scopes: [x.center] });
    assert.equal((await x.s.post('/image/delete', { image: String(image.id) })).status, 200);
    assert.deepEqual(await x.images(), [], 'the record is gone from the list');
    assert.ok(!existsSync(path.join(x.directory, 'keep.img')), 'the file left the repository');
    const trashed = (await x.s.get('/image/trash')).body.trash;
    assert.deepEqual(
      trashed.map((t: any) => [t.id, t.name, t.bytes > 0, t.expires]),
      [[image.id, 'keep', true, '2026-12-08T10:00:00.000Z']],
      'listed with its id, its bytes and when it goes',
    );
    assert.equal((await send(x.s.port, 'GET', '/images/files/keep.img')).status, 404, 'a trashed image is not served');

    const recovered = await x.s.post('/image/recover', { id: image.id });
    assert.equal(recovered.status, 200, recovered.text);
    assert.deepEqual(recovered.body, { id: image.id, name: 'keep' }, 'back under its id');
    const [back] = await x.images();
    assert.deepEqual([back.sha256, back.state, back.size], [image.sha256, 'available', image.size], 'its record as it was');
    assert.deepEqual((await x.s.get('/image/restrict', { image: image.id })).body.scopes, [x.center], 'its centers too');
    assert.equal(readFileSync(path.join(x.directory, 'keep.img'), 'utf8'), 'first image', 'its file is back');
    assert.equal((await x.s.post('/image/check', { id: image.id })).body.state, 'available', 'and checks good');
    assert.deepEqual((await x.s.get('/image/trash')).body.trash, [], 'the trash is empty');
    const unknown = await x.s.post('/image/recover', { id: image.id });
    assert.deepEqual([unknown.status, unknown.body.field], [400, 'id'], 'nothing left to recover is named');

    // Deleted again, and the name taken meanwhile: recovering is refused, naming it.
    await x.s.post('/image/delete', { image: String(image.id) });
    await create(x, 'keep', 'another image of the same name');
    const taken = await x.s.post('/image/recover', { id: image.id });
    assert.equal(taken.status, 400, taken.text);
    assert.match(taken.body.message, /an image named 'keep' exists again/);

    // Past trash_days the trash is emptied for good, files and all.
    await clock.advance(7 * 24 * 3600 * 1000 + 3600 * 1000);
    await eventually(async () => (await x.s.get('/image/trash')).body.trash.length === 0, 'the trash emptied');
    const trashDir = path.join(x.directory, '.trash');
    assert.deepEqual(existsSync(trashDir) ? readdirSync(trashDir) : [], [], 'its folder is gone');
  } finally {
    await x.close();
  }
});

test('keep_versions: a create again keeps the last file as <name>@v<n>, restorable and served by version; a failed create puts it back', async () => {
  const { x, clock } = await clockedSite({ keep_versions: 2 });
  try {
    await create(x, 'lab', 'revision one');
    await create(x, 'lab', 'revision two');
    await create(x, 'lab', 'revision three');
    await create(x, 'lab', 'revision four');
    const [image] = await x.images();
    const listed = (await x.s.get(`/image/versions?id=${image.id}`)).body;
    assert.deepEqual(
      listed.versions.map((v: any) => [v.version, v.file, v.sha256, v.state]),
      [
        [3, 'lab@v3', sha256('revision three'), 'available'],
        [2, 'lab@v2', sha256('revision two'), 'available'],
      ],
      'the last two replaced files are kept, newest first, with their records',
    );
    assert.equal(readFileSync(path.join(x.directory, 'lab.img'), 'utf8'), 'revision four', 'the image is the last create');
    assert.equal(readFileSync(path.join(x.directory, 'lab@v2.img'), 'utf8'), 'revision two', 'version 2 is its own file');
    assert.equal(readFileSync(path.join(x.directory, 'lab@v2.img.full.sum'), 'utf8'), md5('revision two'), 'with its companions');
    assert.ok(!existsSync(path.join(x.directory, 'lab@v1.img')), 'the oldest past keep_versions is gone');

    // Restored by version: the agent is sent the version's file name; HTTP serves it with its own digest.
    const agent = x.agents[0]!;
    agent.on('image/restore', (request) => ({ body: { disk: '1', partition: '2', image_id: request.body.id } }));
    const restore = await x.s.post('/image/restore', {
      clients: [x.ips[0]],
      disk: '1',
      partition: '2',
      id: String(image.id),
      type: 'UNICAST',
      version: 2,
    });
    assert.equal(restore.status, 200, restore.text);
    assert.equal((await agent.waitFor('image/restore')).body.name, 'lab@v2', 'the agent restores lab@v2.img');
    const served = await send(x.s.port, 'GET', '/images/files/lab@v2.img');
    assert.equal(served.text, 'revision two');
    assert.equal(served.headers['repr-digest'], `sha-256=:${createHash('sha256').update('revision two').digest('base64')}:`);
    const none = await x.s.post('/image/restore', {
      clients: [x.ips[0]],
      disk: '1',
      partition: '2',
      id: String(image.id),
      type: 'UNICAST',
      version: 1,
    });
    assert.deepEqual([none.status, none.body.field], [400, 'version'], 'a version not kept is named');

    // A create that fails stores nothing: the file it would have replaced is back in place.
    await x.settled(x.ips[0]!);
    await create(x, 'lab', 'a broken fifth', 500);
    await eventually(() => readFileSync(path.join(x.directory, 'lab.img'), 'utf8') === 'revision four', 'revision four back in place');
    assert.deepEqual(
      (await x.s.get(`/image/versions?id=${image.id}`)).body.versions.map((v: any) => v.version),
      [3, 2],
      'no version kept for a create that stored nothing',
    );

    // The periodic check looks at kept versions too.
    writeFileSync(path.join(x.directory, 'lab@v3.img'), 'revision thr3e');
    await clock.advance(24 * 3600 * 1000);
    const [v3] = (await x.s.get(`/image/versions?id=${image.id}`)).body.versions;
    assert.deepEqual([v3.version, v3.state], [3, 'damaged'], 'a changed version is found damaged');
    const refused = await x.s.post('/image/restore', {
      clients: [x.ips[0]],
      disk: '1',
      partition: '2',
      id: String(image.id),
      type: 'UNICAST',
      version: 3,
    });
    assert.deepEqual([refused.status, refused.body.error], [400, 'image_damaged'], 'and not restored');

    // Deleted and recovered: its versions come along.
    await x.s.post('/image/delete', { image: String(image.id) });
    assert.ok(!existsSync(path.join(x.directory, 'lab@v2.img')), 'versions go to the trash with the image');
    await x.s.post('/image/recover', { id: image.id });
    assert.equal(readFileSync(path.join(x.directory, 'lab@v2.img'), 'utf8'), 'revision two', 'and come back with it');
    assert.deepEqual(
      (await x.s.get(`/image/versions?id=${image.id}`)).body.versions.map((v: any) => v.version),
      [3, 2],
    );
  } finally {
    await x.close();
  }
});

test.run();
