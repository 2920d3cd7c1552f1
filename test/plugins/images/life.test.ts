import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { send } from '../../support/server';
import { createAnswer, imageSite, repositoryAddresses } from './helpers';

/** md5 of 'image bytes', the file the fake agent writes. */
const imageMd5 = createHash('md5').update('image bytes').digest('hex');

test("an image's life against fake agents: create, list, restore, delete; partitions link to it", async () => {
  const x = await imageSite(2);
  try {
    const [source, target] = x.ips as [string, string];
    const a = await x.connect(source);
    const b = await x.connect(target);
    const partitionOf = async (ip: string, partition: number) =>
      (await x.s.get('/client/setup', { client: [ip] })).body.partitions.find((p: any) => p.disk === 1 && p.partition === partition);
    const partitionImage = async (ip: string, partition: number) => (await partitionOf(ip, partition))?.image;

    // Create: the agent writes the files and answers; the record appears and partition 2 links to it.
    a.on('image/create', (request) => {
      mkdirSync(x.directory, { recursive: true });
      writeFileSync(path.join(x.directory, `${request.body.name}.img`), 'image bytes');
      writeFileSync(path.join(x.directory, `${request.body.name}.img.full.sum`), imageMd5);
      // What the agent says of the file is what ogserve finds when it hashes it.
      return { body: createAnswer(request, { size: 11, checksum: imageMd5 }) };
    });
    const created = await x.s.post('/image/create', {
      clients: [source],
      disk: '1',
      partition: '2',
      code: '131',
      name: 'lab',
      id: '0',
      description: 'lab image',
      repository_id: x.repository,
    });
    assert.equal(created.status, 200, created.text);
    await a.waitFor('image/create');
    assert.equal((await x.settled(source)).last_cmd.result, 'success', 'create stored');
    const [image] = await x.images();
    assert.equal(image.name, 'lab', 'listed');
    assert.equal(await partitionImage(source, 2), image.id, 'the source partition links to the image');
    const profile = (await partitionOf(source, 2)).software;
    assert.ok(profile > 0, 'the source partition has the software profile of the answer');
    assert.equal(image.software_id, profile, "the image carries the source partition's software profile");
    assert.equal((await partitionOf(target, 1)).software, 0, 'the target partition has none yet');

    // Restore on another client (ogCLI: the repository given as the server's address).
    b.on('image/restore', (request) => ({
      body: { disk: request.body.disk, partition: request.body.partition, image_id: request.body.id },
    }));
    const restored = await x.s.post('/image/restore', {
      disk: '1',
      partition: '1',
      id: String(image.id),
      name: 'lab',
      repository: repositoryAddresses[0],
      type: 'UNICAST',
      profile: '0',
      clients: [target],
    });
    assert.equal(restored.status, 200, restored.text);
    await b.waitFor('image/restore');
    assert.equal((await x.settled(target)).last_cmd.result, 'success', 'restore answer stored');
    assert.equal(await partitionImage(target, 1), image.id, 'the restored partition links to the image');
    assert.equal((await partitionOf(target, 1)).software, profile, "the restored partition takes the image's software profile");
    const holders = await x.s.get(`/image/clients?id=${image.id}`);
    assert.equal(holders.status, 200, holders.text);
    assert.deepEqual(holders.body, { clients: [source, target].sort() }, 'GET /image/clients: the source and the restored PC');
    const other = (await x.s.post('/room/add', { center: x.center, name: 'Other', netmask: '255.255.255.0' })).body.id as number;
    for (const [rooms, expected] of [
      [[x.room], [source, target].sort()],
      [[other], []],
    ] as const) {
      const made = await x.s.post('/tokens', { name: `room-${rooms[0]}`, role: 'operator', rooms });
      assert.equal(made.status, 200, made.text);
      const limited = await send(x.s.port, 'GET', `/image/clients?id=${image.id}`, undefined, { Authorization: made.body.secret });
      assert.deepEqual(limited.body, { clients: expected }, `a token limited to room ${rooms[0]} hears only of its PCs`);
    }
    for (const [query, field] of [
      ['', 'id'],
      ['?id=abc', 'id'],
      ['?id=0', 'id'],
      ['?id=1.5', 'id'],
      [`?id=${image.id + 999}`, 'id'],
    ] as const) {
      const refused = await x.s.get(`/image/clients${query}`);
      assert.equal(refused.status, 400, `GET /image/clients${query}: ${refused.text}`);
      assert.equal(refused.body.field, field, `GET /image/clients${query} names the field`);
    }

    // A restore answer naming an image that does not exist fails.
    b.on('image/restore', { body: { disk: '1', partition: '1', image_id: '999' } });
    await x.s.post('/image/restore', { disk: '1', partition: '1', id: String(image.id), type: 'UNICAST', clients: [target] });
    await b.waitFor('image/restore', 1);
    assert.equal((await x.settled(target)).last_cmd.result, 'failure', 'unknown image in the answer: failure');

    // Delete: record, files and partition links go.
    const deleted = await x.s.post('/image/delete', { image: String(image.id) });
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(await x.images(), [], 'record gone');
    assert.ok(!existsSync(path.join(x.directory, 'lab.img')), 'image file gone');
    assert.ok(!existsSync(path.join(x.directory, 'lab.img.full.sum')), 'checksum file gone');
    assert.equal(await partitionImage(source, 2), 0, 'source partition no longer links to it');
    assert.equal(await partitionImage(target, 1), 0, 'restored partition no longer links to it');
    assert.equal((await x.s.get(`/image/clients?id=${image.id}`)).status, 400, 'a deleted image has no holders to list');
  } finally {
    await x.close();
  }
});

test.run();
