import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { container } from 'tsyringe';
import { test } from 'uvu';
import { ManualClock } from '../../../testing';
import { BootClock } from '../../../plugins/boot';
import { addCenter, addClient, addRoom, macFor } from '../../support/fixtures';
import { startLab } from '../../support/lab';
import { TOKEN, send } from '../../support/server';
import { eventually, pcGet } from './support';

const start = Date.UTC(2026, 10, 27, 8, 0, 0);
/** Room A holds the first two PCs, room B the third. */
const ips = ['127.0.62.1', '127.0.62.2', '127.0.63.1'];

interface Stage {
  client: string;
  started: string;
  stage: string;
  at: string;
  cut_short: boolean;
}

/** Three PCs whose boots run on a ManualClock, an ogLive to fetch, and GET /boot/stages. */
async function site() {
  const clock = new ManualClock(start);
  const services = container.createChildContainer();
  services.register(BootClock, { useValue: clock });
  let roomA = 0;
  const lab = await startLab({
    ips,
    server: { container: services },
    populate: async (s) => {
      const center = await addCenter(s);
      roomA = await addRoom(s, center, 'A', '255.0.0.0');
      const roomB = await addRoom(s, center, 'B', '255.0.0.0');
      for (const [i, ip] of ips.entries()) await addClient(s, i < 2 ? roomA : roomB, ip, macFor(i + 1));
      return { center, room: roomA };
    },
  });
  const live = path.join(lab.s.dir, 'tftpboot', 'ogLive');
  mkdirSync(live, { recursive: true });
  writeFileSync(path.join(live, 'ogvmlinuz'), Buffer.alloc(3000, 1));
  writeFileSync(path.join(live, 'oginitrd.img'), Buffer.alloc(5000, 2));
  const fetch = async (i: number, file: string) => {
    const urlPath = file === 'script' ? `/boot/ipxe?mac=${macFor(i + 1)}` : `/boot/files/ogLive/${file}?mac=${macFor(i + 1)}`;
    assert.equal((await pcGet(lab.s.port, urlPath, { from: ips[i] })).status, 200, urlPath);
  };
  const stages = async (query = '', headers?: Record<string, string>): Promise<Stage[]> => {
    const r = await send(lab.s.port, 'GET', `/boot/stages${query}`, undefined, headers ?? { Authorization: TOKEN });
    assert.equal(r.status, 200, r.text);
    return r.body.clients;
  };
  return { ...lab, clock, fetch, stages, roomA: () => roomA };
}

const iso = (ms: number) => new Date(ms).toISOString();

test('GET /boot/stages: each PC of the last hours with the furthest stage of its last boot; an earlier boot does not count', async () => {
  const x = await site();
  try {
    // The first PC's earlier boot got as far as its agent; its last one stops at the kernel.
    await x.fetch(0, 'script');
    await x.fetch(0, 'ogvmlinuz');
    await x.fetch(0, 'oginitrd.img');
    await x.connect(ips[0]!);
    await eventually(async () => (await x.stages()).some((s) => s.stage === 'agent'), 'the first boot reaches the agent');
    await x.clock.advance(3_600_000);
    await x.fetch(0, 'script');
    await x.clock.advance(1000);
    await x.fetch(0, 'ogvmlinuz');
    // The second PC got its script and no further.
    await x.fetch(1, 'script');
    // Each stage is recorded after its answer: wait for the kernel's too.
    await eventually(async () => {
      const now = await x.stages();
      return now.length === 2 && now.some((s) => s.client === ips[0] && s.stage === 'kernel');
    }, 'both');
    const seen = (await x.stages()).sort((a, b) => a.client.localeCompare(b.client));
    assert.deepEqual(seen, [
      { client: ips[0], started: iso(start + 3_600_000), stage: 'kernel', at: iso(start + 3_601_000), cut_short: false },
      { client: ips[1], started: iso(start + 3_601_000), stage: 'script', at: iso(start + 3_601_000), cut_short: false },
    ]);

    await x.clock.advance(2 * 3_600_000);
    assert.deepEqual(await x.stages('?hours=1'), [], 'no boot in the last hour');
    assert.equal((await x.stages('?hours=3')).length, 2, 'both within three hours');
  } finally {
    await x.close();
  }
});

test('GET /boot/stages refuses a bad hours count naming it, and a key limited to room A sees its PCs only', async () => {
  const x = await site();
  try {
    for (const hours of ['0', 'many', '745', '1.5', '']) {
      const r = await x.s.get(`/boot/stages?hours=${hours}`);
      assert.equal(r.status, 400, `${hours}: ${r.text}`);
      assert.equal(r.body.field, 'hours', hours);
    }
    await x.fetch(0, 'script');
    await x.fetch(2, 'script');
    await eventually(async () => (await x.stages()).length === 2, 'two boots');
    const made = await x.s.post('/tokens', { name: 'a', role: 'reader', rooms: [x.roomA()] });
    assert.equal(made.status, 200, made.text);
    assert.deepEqual(
      (await x.stages('', { Authorization: made.body.secret })).map((s) => s.client),
      [ips[0]],
      'room A only',
    );
  } finally {
    await x.close();
  }
});

test.run();
