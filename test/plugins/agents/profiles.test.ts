import assert from 'node:assert/strict';
import { test } from 'uvu';
import type { FakeAgent } from '../../support/fake-agent';
import { eventually } from '../../support/fake-agent';
import { type Site, site } from './helpers';

/**
 * Profiles as the reference keeps them: a partition's `software` (GET /client/setup) is the
 * id of its set of packages, shared by every partition reporting the same set; a client's
 * `hardware_id` (GET /client/info) is the id of its set of components.
 */

async function partitionOf(x: Site, ip: string, partition = 2): Promise<{ software: number; image: number }> {
  const r = await x.s.get('/client/setup', { client: [ip] });
  assert.equal(r.status, 200, r.text);
  return r.body.partitions.find((p: { disk: number; partition: number }) => p.disk === 1 && p.partition === partition);
}

/** Make the agent answer the next software request with `text`, and wait until it is stored. */
async function reportSoftware(x: Site, agent: FakeAgent, ip: string, text: string, times: number): Promise<void> {
  agent.on('software', (request) => ({ body: { partition: request.body?.partition, software: text } }));
  await x.s.post('/software', { clients: [ip], disk: '1', partition: '2' });
  await agent.waitFor('software', times);
  await eventually(async () => (await x.entry(ip))?.state === 'OPG' && (await x.entry(ip))?.last_cmd.result === 'success', `${ip} stored`);
}

async function reportHardware(x: Site, agent: FakeAgent, ip: string, text: string, times: number): Promise<void> {
  agent.on('hardware', { body: { hardware: text } });
  await x.s.post('/hardware', { clients: [ip] });
  await agent.waitFor('hardware', times);
  await eventually(async () => (await x.entry(ip))?.state === 'OPG' && (await x.entry(ip))?.last_cmd.result === 'success', `${ip} stored`);
}

test('partitions reporting the same packages share one software id; other packages get another', async () => {
  const x = await site(3);
  try {
    const [a, b, c] = x.ips as [string, string, string];
    const agents = [await x.connect(a), await x.connect(b), await x.connect(c)];
    assert.equal((await partitionOf(x, a)).software, 0, 'no software reported yet');
    await reportSoftware(x, agents[0]!, a, 'Ubuntu 22.04 LTS\nbash 5.1\ncoreutils 8.32\n', 0);
    // The same packages in another order, under another OS line: the reference compares the packages.
    await reportSoftware(x, agents[1]!, b, 'Ubuntu 22.04.3 LTS\ncoreutils 8.32\nbash 5.1\n', 0);
    await reportSoftware(x, agents[2]!, c, 'Ubuntu 22.04 LTS\nbash 5.1\nvim 9.0\n', 0);
    const [pa, pb, pc] = [await partitionOf(x, a), await partitionOf(x, b), await partitionOf(x, c)];
    assert.ok(pa.software > 0, `a profile id: ${pa.software}`);
    assert.equal(pb.software, pa.software, 'same packages, same id');
    assert.ok(pc.software > 0 && pc.software !== pa.software, 'other packages, another id');
    assert.equal((await partitionOf(x, a, 1)).software, 0, 'the other partition is untouched');
  } finally {
    await x.close();
  }
});

test('a partition whose software profile changes no longer holds its image; the same report keeps it', async () => {
  const x = await site(1);
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    await reportSoftware(x, agent, ip, 'Ubuntu\nbash 5.1\n', 0);
    const before = await partitionOf(x, ip);
    // The partition holds an image (as a restore records it; the images plugin is not needed here).
    await x.s.app.database.query('update partitions set image = 7 where disk = 1 and part_number = 2');
    await reportSoftware(x, agent, ip, 'Ubuntu\nbash 5.1\n', 1);
    assert.deepEqual(await partitionOf(x, ip), { ...before, image: 7 }, 'the same packages: profile and image kept');
    await reportSoftware(x, agent, ip, 'Ubuntu\nbash 5.2\n', 2);
    const after = await partitionOf(x, ip);
    assert.ok(after.software !== before.software && after.software > 0, 'a new profile');
    assert.equal(after.image, 0, 'the image is no longer there, as the reference records it');
  } finally {
    await x.close();
  }
});

test('clients reporting the same components share one hardware_id; other components get another', async () => {
  const x = await site(3);
  try {
    const [a, b, c] = x.ips as [string, string, string];
    const agents = [await x.connect(a), await x.connect(b), await x.connect(c)];
    const hardwareId = async (ip: string) => (await x.s.get('/client/info', { client: [ip] })).body.hardware_id;
    assert.equal(await hardwareId(a), 0, 'nothing reported yet');
    await reportHardware(x, agents[0]!, a, 'cpu=Intel Core i5\nmem=QEMU 8192MiB\n', 0);
    await reportHardware(x, agents[1]!, b, 'mem=QEMU 8192MiB\ncpu=Intel Core i5\n', 0);
    await reportHardware(x, agents[2]!, c, 'cpu=Intel Core i7\nmem=QEMU 8192MiB\n', 0);
    const [ha, hb, hc] = [await hardwareId(a), await hardwareId(b), await hardwareId(c)];
    assert.ok(ha > 0, `a profile id: ${ha}`);
    assert.equal(hb, ha, 'same components, same id');
    assert.ok(hc > 0 && hc !== ha, 'other components, another id');
    await reportHardware(x, agents[2]!, c, 'cpu=Intel Core i5\nmem=QEMU 8192MiB\n', 1);
    assert.equal(await hardwareId(c), ha, 'a client whose components change takes the profile of its new set');
  } finally {
    await x.close();
  }
});

test.run();
