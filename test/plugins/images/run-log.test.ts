// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { ImageStore } from '../../../plugins/images';
import { eventually } from '../../support/fake-agent';
import { createAnswer, imageSite, repositoryAddresses } from './helpers';

/**
 * The end of every image create and restore is logged, success or not, with the client,
 * the image and how long it took: hours-long commands otherwise leave no sign of ending.
 */

type LogLine = { level: string; msg: string; [key: string]: unknown };

async function endOf(logs: LogLine[], start: string): Promise<LogLine> {
  return (await eventually(() => logs.find((l) => l.msg.startsWith(start)), `the log line '${start}...'`))!;
}

const seconds = '\\d+\\.\\d s';

test('image create: its end logged with client, image, duration; a refused one says why', async () => {
  const x = await imageSite();
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    agent.on('image/create', (request) => ({ body: createAnswer(request), delayMs: 50 }));
    const body = { clients: [ip], disk: '1', partition: '2', code: '131', name: 'ubuntu22', repository_id: x.repository, id: '0' };
    assert.equal((await x.s.post('/image/create', body)).status, 200);
    const done = await endOf(x.s.logs, "image 'ubuntu22'");
    const [image] = await x.images();
    assert.match(done.msg, new RegExp(`^image 'ubuntu22' \\(id ${image.id}\\) created from 127\\.0\\.1\\.1 in ${seconds}$`));
    assert.equal(done.level, 'info');
    assert.equal(done.plugin, 'images');
    assert.deepEqual([done.client, done.image, done.name, done.command, done.ok], [ip, image.id, 'ubuntu22', 'image/create', true]);
    assert.ok(typeof done.duration_s === 'number' && done.duration_s >= 0, `duration_s: ${done.duration_s}`);

    agent.on('image/create', { status: 500 });
    await x.s.post('/image/create', { ...body, name: 'broken' });
    const failed = await endOf(x.s.logs, "image 'broken'");
    assert.match(failed.msg, new RegExp(`^image 'broken' not created from 127\\.0\\.1\\.1: the agent answered 500, after ${seconds}$`));
    assert.deepEqual([failed.level, failed.image, failed.status, failed.ok], ['warn', null, 500, false]);

    agent.on('image/create', (request) => ({ body: createAnswer(request, { datasize: 0 }) }));
    await x.s.post('/image/create', { ...body, name: 'empty' });
    const unstored = await endOf(x.s.logs, "image 'empty'");
    assert.match(unstored.msg, /^image 'empty' not created from 127\.0\.1\.1: its answer could not be stored, after /);
  } finally {
    await x.close();
  }
});

test('image restore: its end logged, and a restore that times out or loses its agent says so', async () => {
  const x = await imageSite(3, { agents: { command_timeout_s: 0.3 } });
  try {
    const id = await x.s.app.container.resolve(ImageStore).saveCapture({
      name: 'win10',
      repositoryId: x.repository,
      clientId: 0,
      disk: 1,
      partition: 1,
      code: 7,
      size: 1n,
      datasize: 1n,
      checksum: '',
      permissions: '644',
      lastUpdate: 0n,
      clonator: '',
      compressor: '',
      filesystem: '',
    });
    const [ok, slow, gone] = await Promise.all(x.ips.map((ip) => x.connect(ip)));
    ok!.on('image/restore', (request) => ({
      body: { disk: request.body.disk, partition: request.body.partition, image_id: request.body.id },
    }));
    slow!.on('image/restore', { none: true });
    gone!.on('image/restore', { none: true });
    const r = await x.s.post('/image/restore', {
      clients: x.ips,
      disk: '1',
      partition: '1',
      id: String(id),
      name: 'win10',
      repository: repositoryAddresses[0],
      type: 'UNICAST',
      profile: '0',
    });
    assert.equal(r.status, 200, r.text);
    await gone!.waitFor('image/restore');
    gone!.destroy();
    const logs = x.s.logs;
    const [a, b, c] = x.ips.map((ip) => ip.replace(/\./g, '\\.'));
    const restored = await endOf(logs, `image 'win10' (id ${id}) restored to ${x.ips[0]}`);
    assert.match(restored.msg, new RegExp(`^image 'win10' \\(id ${id}\\) restored to ${a} in ${seconds}$`));
    assert.deepEqual([restored.level, restored.image, restored.command, restored.ok], ['info', id, 'image/restore', true]);
    const timedOut = await endOf(logs, `image 'win10' (id ${id}) not restored to ${x.ips[1]}`);
    assert.match(
      timedOut.msg,
      new RegExp(`^image 'win10' \\(id ${id}\\) not restored to ${b}: no answer within agents\\.command_timeout_s, after ${seconds}$`),
    );
    assert.equal(timedOut.reason, 'timeout');
    const lost = await endOf(logs, `image 'win10' (id ${id}) not restored to ${x.ips[2]}`);
    assert.match(lost.msg, new RegExp(`^image 'win10' \\(id ${id}\\) not restored to ${c}: the agent disconnected, after ${seconds}$`));
  } finally {
    await x.close();
  }
});

test.run();
