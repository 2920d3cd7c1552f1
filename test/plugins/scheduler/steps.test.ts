import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import type { Action } from '../../../plugins/scheduler';
import { ActionEntity } from '../../../plugins/scheduler/entities/action';
import { eventually } from '../../support/fake-agent';
import { addClient, macFor } from '../../support/fixtures';
import { startServer } from '../../support/server';
import { UdpReceiver } from '../../support/udp-receiver';
import { createAnswer } from '../images/helpers';
import { expectedPacket } from '../wol/helpers';
import { schedulerSite, whenFor, type SchedulerSite, type SiteOptions } from './helpers';

/**
 * Steps whose work is more than relaying: wake steps (sent by the server itself) and steps
 * whose answers other plugins store (software, image create and restore).
 */

/** The clients' room is 127.0.2.0/24: broadcast wake packets go to 127.0.2.255. */
async function withWakeSite(
  fn: (site: SchedulerSite, broadcast: UdpReceiver, receiver: (ip: string) => Promise<UdpReceiver>) => Promise<void>,
  options: SiteOptions = {},
): Promise<void> {
  const broadcast = await UdpReceiver.bind('127.0.2.255');
  const receivers = [broadcast];
  try {
    const site = await schedulerSite({ ...options, wolPort: broadcast.port });
    try {
      await fn(site, broadcast, async (ip) => {
        const receiver = await UdpReceiver.bind(ip, broadcast.port);
        receivers.push(receiver);
        return receiver;
      });
    } finally {
      await site.close();
    }
  } finally {
    for (const receiver of receivers) await receiver.close();
  }
}

async function withSite(fn: (site: SchedulerSite) => Promise<void>, options: SiteOptions = {}): Promise<void> {
  const site = await schedulerSite(options);
  try {
    await fn(site);
  } finally {
    await site.close();
  }
}

/** Every action, once there are `count` and all are done. */
async function done(site: SchedulerSite, count: number): Promise<Action[]> {
  const rows = await eventually(async () => {
    const all = await site.scheduler.actions();
    return all.length === count && all.every((a) => a.state === 'done') ? all : undefined;
  }, `${count} actions done`);
  return rows!;
}

test('a wol step wakes at once, before run/schedule; the steps after it wait for the agent to connect', () =>
  withWakeSite(async (site, broadcast) => {
    const { s, scheduler, ips, center } = site;
    const p = (
      await s.post('/procedure/add', {
        center,
        name: 'morning',
        steps: [
          { command: 'wol', params: { type: 'broadcast' } },
          { command: 'session', params: { disk: '1', part: '2' } },
        ],
      })
    ).body.id;
    const r = await s.post('/procedure/run', { clients: [ips[0]], procedure: String(p) });
    assert.equal(r.status, 200, r.text);
    // Sent before the answer: the row is done already.
    const [wake, session] = await scheduler.actions();
    assert.deepEqual(
      [wake!.command, wake!.state, wake!.result, wake!.note],
      ['wol', 'done', 'success', ''],
      'the wake step is done once queued',
    );
    assert.deepEqual([session!.command, session!.state], ['session', 'queued'], 'the session step waits for the agent');
    assert.equal(wake!.session, wake!.id, 'the wake step opens the session');
    assert.deepEqual(
      (await broadcast.flush()).map((p) => p.data),
      [expectedPacket(macFor(1))],
      'one exact magic packet to the room broadcast address',
    );
    const listed = (await s.get('/clients')).body.clients as { addr: string; state: string }[];
    assert.deepEqual(
      listed,
      [{ addr: ips[0], state: 'WOL_SENT', last_cmd: { result: 'unknown' } }],
      'the woken client is WOL_SENT, as after POST /wol',
    );

    // The PC boots: its agent connects, is refreshed, then gets the queued session step.
    const agent = await site.connect(ips[0]!);
    assert.deepEqual((await agent.waitFor('session')).body, { disk: '1', partition: '2' }, 'the step as the agent reads it');
    const rows = await done(site, 2);
    assert.deepEqual(
      rows.map((a) => a.result),
      ['success', 'success'],
      'both succeeded',
    );
  }));

test('a unicast wol step goes to the client address only; an awake client gets no packet and its step succeeds', () =>
  withWakeSite(
    async (site, broadcast, receiver) => {
      const { s, scheduler, ips, center } = site;
      const off = await receiver(ips[0]!);
      const on = await receiver(ips[1]!);
      const agent = await site.connect(ips[1]!);
      const p = (await s.post('/procedure/add', { center, name: 'wake', steps: [{ command: 'wol', params: { type: 'unicast' } }] })).body
        .id;
      assert.equal((await s.post('/procedure/run', { clients: ips, procedure: p })).status, 200, 'run');
      const rows = await scheduler.actions();
      assert.deepEqual(
        rows.map((a) => [a.ip, a.state, a.result, a.note]),
        [
          [ips[0], 'done', 'success', ''],
          [ips[1], 'done', 'success', 'already awake: its agent is connected'],
        ],
        'one row per client, each done with why',
      );
      assert.deepEqual(
        (await off.flush()).map((p) => p.data),
        [expectedPacket(macFor(1))],
        'the sleeping client got its packet by unicast',
      );
      assert.equal((await on.flush()).length, 0, 'the awake client got none');
      assert.equal((await broadcast.flush()).length, 0, 'no broadcast for unicast steps');
      assert.ok(
        !agent.requests.some((q) => q.path !== 'refresh' && q.path !== 'run/schedule'),
        'the awake agent was asked for nothing but run/schedule',
      );
    },
    { clients: 2 },
  ));

test("a wol schedule/command (the reference's legacy type '1') fires at its time in 2030", () =>
  withWakeSite(
    async (site, broadcast) => {
      const { s, scheduler, clock, ips } = site;
      const at = new Date(2030, 0, 7, 7, 30).getTime();
      const r = await s.post('/schedule/command', { clients: ips, command: 'wol', params: { type: '1' }, when: whenFor(new Date(at)) });
      assert.equal(r.status, 200, r.text);
      await clock.advanceTo(at - 60_000);
      assert.equal((await broadcast.flush()).length, 0, 'nothing before the time');
      assert.ok(
        (await scheduler.actions()).every((a) => a.state === 'waiting'),
        'both waiting',
      );
      await clock.advanceTo(at);
      const rows = await done(site, 2);
      assert.ok(
        rows.every((a) => a.result === 'success' && a.finishedAt === at),
        'both woken at the fire time',
      );
      const packets = (await broadcast.flush()).map((p) => p.data).sort(Buffer.compare);
      assert.deepEqual(packets, [expectedPacket(macFor(1)), expectedPacket(macFor(2))].sort(Buffer.compare), 'one packet per client');
    },
    { clients: 2 },
  ));

test('wol steps are checked: an unknown packet type is refused naming the param', () =>
  withSite(async ({ s, ips, center }) => {
    const bad = await s.post('/schedule/command', { clients: ips, command: 'wol', params: { type: 'magic' } });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.body.field, 'params.type', bad.text);
    const step = await s.post('/procedure/add', { center, name: 'p', steps: [{ command: 'wol', params: { type: 3 } }] });
    assert.equal(step.status, 400, step.text);
    assert.equal(step.body.field, 'steps[0].params.type', step.text);
    assert.equal(
      (await s.post('/procedure/add', { center, name: 'p', steps: [{ command: 'wol' }] })).status,
      200,
      'the type defaults to broadcast',
    );
  }));

test('a wake step still queued when the server stopped fails at the next start, and no packet leaves', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-sched-'));
  const broadcast = await UdpReceiver.bind('127.0.2.255');
  try {
    const first = await schedulerSite({ dir, wolPort: broadcast.port });
    try {
      const when = whenFor(new Date(2027, 0, 1, 8, 0));
      assert.equal(
        (await first.s.post('/schedule/command', { clients: [first.ips[0]], command: 'wol', params: {}, when })).status,
        200,
        'scheduled',
      );
      // As if the server died between queueing the step and sending its packet.
      await first.s.app.database.fork().nativeUpdate(ActionEntity, {}, { state: 'queued', queuedAt: first.clock.now() });
    } finally {
      await first.close();
    }
    const second = await schedulerSite({ dir, populate: false, wolPort: broadcast.port });
    try {
      const [row] = await second.scheduler.actions();
      assert.deepEqual(
        [row!.state, row!.result, row!.note],
        ['done', 'failure', 'server restarted before the wake-on-LAN packet was sent'],
        'failed, with why',
      );
      assert.equal((await broadcast.flush()).length, 0, 'no late wake-up');
    } finally {
      await second.close();
    }
  } finally {
    await broadcast.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the scheduler needs the wol plugin: starting without it names the missing plugin', async () => {
  await assert.rejects(
    startServer({ config: { plugins: ['inventory', 'agents', 'groups', 'scheduler'] } }),
    (error: Error) => /scheduler/.test(error.message) && /\bwol\b/.test(error.message),
  );
});

test("a queued software step's answer is stored for the disk the step named", () =>
  withSite(async (site) => {
    const { s, ips, center } = site;
    const agent = await site.connect(ips[0]!);
    const p = (
      await s.post('/procedure/add', { center, name: 'inventory', steps: [{ command: 'software', params: { disk: '2', partition: '3' } }] })
    ).body.id;
    assert.equal((await s.post('/procedure/run', { clients: [ips[0]], procedure: p })).status, 200, 'run');
    assert.deepEqual((await agent.waitFor('software')).body, { disk: '2', partition: '3' }, 'the agent is asked for disk 2, partition 3');
    const [row] = await done(site, 1);
    assert.equal(row!.result, 'success', 'stored');
    const read = await s.get('/software', { client: [ips[0]], disk: 2, partition: 3 });
    assert.deepEqual(read.body, { software: ['bash 5.1', 'coreutils 8.32'] }, 'readable through GET /software');
    assert.deepEqual(
      (await s.get('/software', { client: [ips[0]], disk: 1, partition: 3 })).body,
      { software: [] },
      'not stored under another disk',
    );

    // An answer that cannot be read fails the step, and the stored list stays as it was.
    agent.on('software', { body: { partition: '3' } });
    assert.equal((await s.post('/procedure/run', { clients: [ips[0]], procedure: p })).status, 200, 'run again');
    const rows = await done(site, 2);
    assert.deepEqual(
      [rows[1]!.result, rows[1]!.note],
      ['failure', 'the answer could not be stored'],
      'the unreadable answer fails the step',
    );
    assert.deepEqual(
      (await s.get('/software', { client: [ips[0]], disk: 2, partition: 3 })).body,
      { software: ['bash 5.1', 'coreutils 8.32'] },
      'unchanged',
    );
  }));

test('a stop step succeeds when the agent closes the connection, as it answers stop; another command cut off that way fails', () =>
  withSite(
    async (site) => {
      const { s, ips, center } = site;
      const stopped = await site.connect(ips[0]!);
      const cut = await site.connect(ips[1]!);
      cut.on('hardware', { none: true, closeAfter: true });
      const stop = (await s.post('/procedure/add', { center, name: 'purge', steps: [{ command: 'stop' }] })).body.id;
      const hardware = (await s.post('/procedure/add', { center, name: 'inventory', steps: [{ command: 'hardware' }] })).body.id;
      assert.equal((await s.post('/procedure/run', { clients: [ips[0]], procedure: stop })).status, 200, 'stop queued');
      assert.equal((await s.post('/procedure/run', { clients: [ips[1]], procedure: hardware })).status, 200, 'hardware queued');
      await Promise.all([stopped.closed, cut.closed]);
      const rows = await done(site, 2);
      assert.deepEqual(
        rows.map((a) => [a.command, a.result, a.note]),
        [
          ['stop', 'success', ''],
          ['hardware', 'failure', 'agent disconnected: the agent closed the connection'],
        ],
        'stop: success; hardware without an answer: failure',
      );
    },
    { clients: 2 },
  ));

const partitionImage = async (site: SchedulerSite, ip: string, disk: number, partition: number) =>
  ((await site.s.get('/client/setup', { client: [ip] })).body.partitions as any[]).find((p) => p.disk === disk && p.partition === partition)
    ?.image;

test("image steps: create names the client's repository on its network, and both answers are stored by the images plugin", () =>
  withSite(
    async (site) => {
      const { s, scheduler, ips, center } = site;
      const [source, target] = [await site.connect(ips[0]!), await site.connect(ips[1]!)];
      source.on('image/create', (request) => ({ body: createAnswer(request) }));
      target.on('image/restore', (request) => ({
        body: { disk: request.body.disk, partition: request.body.partition, image_id: request.body.id },
      }));

      // As the reference's console writes a create step: no repository.
      const create = (
        await s.post('/procedure/add', {
          center,
          name: 'capture',
          steps: [{ command: 'image_create', params: { disk: '1', partition: '1', code: '131', id: '0', name: 'lab' } }],
        })
      ).body.id;
      assert.equal((await s.post('/procedure/run', { clients: [ips[0]], procedure: create })).status, 200, 'create queued');
      const sent = await source.waitFor('image/create');
      assert.deepEqual(
        sent.body,
        { disk: '1', partition: '1', code: '131', id: '0', name: 'lab', repository: '127.0.2.250' },
        "the client's repository, by its address on 127.0.2.0/24",
      );
      assert.equal((await done(site, 1))[0]!.result, 'success', 'the create answer was stored');
      const images = (await s.get('/images')).body.images as any[];
      assert.deepEqual(
        images.map((i) => [i.name, i.repo_id]),
        [['lab', site.repository]],
        'the image record, in the repository that address belongs to',
      );
      assert.equal(await partitionImage(site, ips[0]!, 1, 1), images[0].id, 'the source partition links to the image');

      // A restore step naming the repository by its other address: each client gets its own network's.
      const restore = (
        await s.post('/procedure/add', {
          center,
          name: 'deploy',
          steps: [
            {
              command: 'image_restore',
              params: {
                disk: '1',
                partition: '1',
                id: String(images[0].id),
                name: 'lab',
                repository: '10.99.0.1',
                type: 'UNICAST',
                profile: '0',
              },
            },
          ],
        })
      ).body.id;
      assert.equal((await s.post('/procedure/run', { clients: [ips[1]], procedure: restore })).status, 200, 'restore queued');
      assert.equal((await target.waitFor('image/restore')).body.repository, '127.0.2.250', 'mapped to the address on the client network');
      assert.equal((await done(site, 2))[1]!.result, 'success', 'the restore answer was stored');
      assert.equal(await partitionImage(site, ips[1]!, 1, 1), images[0].id, 'the restored partition links to the image');
      assert.equal((await scheduler.actions()).length, 2, 'nothing else queued');
    },
    { clients: 2, plugins: ['transfers', 'images'], repository: ['10.99.0.1', '127.0.2.250'] },
  ));

test('an image is created from one client: runs for several are refused, and a task for a room sends the step to its first client only', () =>
  withSite(
    async (site) => {
      const { s, scheduler, ips, center, room } = site;
      const [first, second] = [await site.connect(ips[0]!), await site.connect(ips[1]!)];
      first.on('image/create', (request) => ({ body: createAnswer(request) }));
      const capture = { command: 'image_create', params: { disk: '1', partition: '1', code: '131', id: '0', name: 'lab' } };
      const p = (await s.post('/procedure/add', { center, name: 'capture', steps: [capture, { command: 'hardware' }] })).body.id;
      const outer = (await s.post('/procedure/add', { center, name: 'outer', steps: [{ procedure: p }] })).body.id;
      for (const [what, r] of [
        ['procedure/run', await s.post('/procedure/run', { clients: ips, procedure: p })],
        ['procedure/run of an including procedure', await s.post('/procedure/run', { clients: ips, procedure: outer })],
        ['schedule/command', await s.post('/schedule/command', { clients: ips, ...capture })],
      ] as const) {
        assert.equal(r.status, 400, `${what}: ${r.text}`);
        assert.equal(r.body.field, 'clients', `${what}: ${r.text}`);
      }
      assert.equal((await scheduler.actions()).length, 0, 'the refused runs wrote nothing');

      const task = (await s.post('/task/add', { center, name: 't', steps: [{ procedure: p }], scope: { type: 'room', id: room } })).body.id;
      assert.equal((await s.post('/task/run', { task })).status, 200, 'task run');
      const rows = await done(site, 4);
      assert.deepEqual(
        rows.map((a) => [a.command, a.ip, a.result, a.note]),
        [
          ['image_create', ips[0], 'success', ''],
          ['image_create', ips[1], 'failure', `an image is created from one client: only ${ips[0]} was sent this step`],
          ['hardware', ips[0], 'success', ''],
          ['hardware', ips[1], 'success', ''],
        ],
        'one client creates the image; the other is told why not; the other steps run everywhere',
      );
      assert.ok(!second.requests.some((q) => q.path === 'image/create'), 'the second client was not sent the create');

      // A procedure schedule replaying that session keeps the refusal.
      assert.equal(
        (await s.post('/schedule/create', { task: rows[0]!.session, name: 'again', type: 'procedure' })).status,
        200,
        'replayed',
      );
      await first.waitFor('image/create', 1);
      await eventually(async () => (await scheduler.actions()).every((a) => a.state === 'done'), 'replay done');
      const replayed = await scheduler.actions();
      assert.deepEqual(replayed[1]!.note, rows[1]!.note, 'the refused row stays refused');
      assert.ok(!second.requests.some((q) => q.path === 'image/create'), 'still no create for the second client');
    },
    { clients: 2, plugins: ['transfers', 'images'], repository: ['127.0.2.250'] },
  ));

test('an image_create step for a client without a repository fails with why, and is not sent', () =>
  withSite(
    async (site) => {
      const { s, room, center } = site;
      await addClient(s, room, '127.0.2.9', macFor(9));
      const agent = await site.connect('127.0.2.9');
      const p = (
        await s.post('/procedure/add', {
          center,
          name: 'capture',
          steps: [
            { command: 'image_create', params: { disk: '1', partition: '1', code: '131', id: '0', name: 'lab' } },
            { command: 'hardware' },
          ],
        })
      ).body.id;
      assert.equal((await s.post('/procedure/run', { clients: ['127.0.2.9'], procedure: p })).status, 200, 'queued');
      const rows = await done(site, 2);
      assert.deepEqual(
        rows.map((a) => [a.command, a.result, a.note]),
        [
          ['image_create', 'failure', "'repository_id' is required: neither the image nor the client has a repository"],
          ['hardware', 'success', ''],
        ],
        'the unsendable step fails; the next one still runs',
      );
      assert.ok(!agent.requests.some((q) => q.path === 'image/create'), 'nothing sent to the agent');
    },
    { clients: 1, plugins: ['transfers', 'images'], repository: ['127.0.2.250'] },
  ));

test.run();
