// System needs: udpcast
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { AgentCommands } from '../../../plugins/agents';
import { ImageStore, ImagesConfig } from '../../../plugins/images';
import { SessionClientEntity } from '../../../plugins/multicast/entities/session-client';
import { SessionEntity } from '../../../plugins/multicast/entities/session';
import { SenderProcess } from '../../../plugins/multicast/sender';
import { EventStreamClient } from '../../support/event-stream';
import { type FakeAgent, answerBytes, eventually, within } from '../../support/fake-agent';
import { addClient, macFor } from '../../support/fixtures';
import { type Lab, startLab } from '../../support/lab';
import { type LoopbackNamespace, makeLoopbackNamespace } from '../../support/netns';
import { makeTestDir, removeTestStore, startServer } from '../../support/server';

/**
 * Sessions through REST on every database engine: the server runs in the test's process,
 * its udp-sender in a network namespace of the test's (`multicast.udp_sender` names a
 * wrapper that enters it), and the one PC, 127.0.0.1 (whose agent connects from there), runs
 * udp-receiver on that namespace's loopback: to the sender it is 127.0.0.1 too. Three PCs on
 * a bridge are the lab test's.
 */

const size = 3_000_000;
/** A bound, not a timing check: a sender starts in a namespace through ip netns exec, which a loaded CI machine may take seconds over. */
const spawnWaitMs = 30_000;

interface Site extends Lab {
  ns: LoopbackNamespace;
  dir: string;
  image: number;
  file: string;
  receivers: ChildProcess[];
  /** The fake agent answers an image/restore of type MULTICAST:<port> by running udp-receiver, then 200 (500 if it failed). */
  receiveOn(agent: FakeAgent, out: string): void;
  restore(clients: string[], type?: string): Promise<{ status: number; body: any; text: string }>;
  session(id: number): Promise<any>;
  close(): Promise<void>;
}

async function site(config: Record<string, unknown> = {}, ips = ['127.0.0.1']): Promise<Site> {
  const ns = makeLoopbackNamespace();
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-mcast-'));
  const wrapper = path.join(dir, 'udp-sender');
  writeFileSync(wrapper, `#!/bin/sh\nexec ip netns exec ${ns.name} udp-sender "$@"\n`);
  chmodSync(wrapper, 0o755);
  let repository = 0;
  let lab: Lab;
  try {
    lab = await startLab({
      ips,
      netmask: '255.0.0.0',
      server: {
        config: {
          plugins: ['inventory', 'agents', 'transfers', 'images', 'jobs', 'events', 'metrics', 'tokens', 'multicast'],
          multicast: {
            udp_sender: wrapper,
            directory: path.join(dir, 'multicast'),
            retries_until_drop: 10,
            max_bitrate: '100m',
            ...config,
          },
        },
      },
      async prepare(s) {
        // The repository a fresh site starts with: this server, 127.0.0.1.
        const listed = (await s.get('/repositories')).body.repositories as { id: number; ip: string }[];
        repository = listed.find((r) => r.ip === '127.0.0.1')!.id;
        return { repo_id: repository };
      },
    });
  } catch (error) {
    ns.remove();
    throw error;
  }
  try {
    return await siteOn(lab, ns, dir, repository);
  } catch (error) {
    await lab.close();
    ns.remove();
    throw error;
  }
}

async function siteOn(lab: Lab, ns: LoopbackNamespace, dir: string, repository: number): Promise<Site> {
  const directory = lab.s.app.config.section('repository', ImagesConfig).directory;
  mkdirSync(directory, { recursive: true });
  const file = path.join(directory, 'lab.img');
  writeFileSync(file, randomFillSync(Buffer.alloc(size)));
  const image = await lab.s.app.container.resolve(ImageStore).saveCapture({
    name: 'lab',
    repositoryId: repository,
    clientId: 0,
    disk: 1,
    partition: 1,
    code: 131,
    size: BigInt(size),
    datasize: BigInt(size),
    checksum: '',
    permissions: '644',
    lastUpdate: 0n,
    clonator: 'partclone',
    compressor: 'lzop',
    filesystem: 'EXT4',
  });
  const receivers: ChildProcess[] = [];
  return {
    ...lab,
    ns,
    dir,
    image,
    file,
    receivers,
    receiveOn(agent, out) {
      agent.on(
        'image/restore',
        (request) => {
          const [, port] = /^MULTICAST:(\d+)$/.exec(request.body.type) ?? [];
          const args = ['--portbase', port!, '--nokbd', '--interface', 'lo', '--receive-timeout', '10', '--file', out];
          const receiver = ns.spawnIn(ns.name, 'udp-receiver', args, { stdio: 'ignore' });
          receivers.push(receiver);
          receiver.once('exit', (code) => {
            const body = { disk: request.body.disk, partition: request.body.partition, image_id: request.body.id };
            agent.write(code === 0 ? answerBytes(200, body) : answerBytes(500, {}));
          });
          return { none: true };
        },
        true,
      );
    },
    restore(clients, type = 'MULTICAST') {
      return lab.s.post('/image/restore', { clients, disk: '1', partition: '2', id: String(image), type });
    },
    async session(id) {
      const r = await lab.s.get(`/multicast/sessions/${id}`);
      assert.equal(r.status, 200, r.text);
      return r.body;
    },
    async close() {
      for (const r of receivers) r.kill('SIGKILL');
      try {
        await lab.close();
      } finally {
        ns.remove();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** The id of job `job`'s session (the restore answers once the session's rows name its job). */
async function sessionIdOfJob(x: Site, job: number): Promise<number> {
  const r = await x.s.get(`/multicast/sessions?job=${job}`);
  assert.equal(r.body.sessions?.length, 1, `job ${job}'s session: ${r.text}`);
  return r.body.sessions[0].id;
}

/** The session of job `job`, once there is one. */
async function sessionOfJob(x: Site, job: number): Promise<any> {
  const r = await x.s.get(`/multicast/sessions?job=${job}`);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.sessions.length, 1, r.text);
  return x.session(r.body.sessions[0].id);
}

const jobLines = async (x: Site, job: number) => {
  const r = await x.s.get(`/jobs/${job}`);
  assert.equal(r.status, 200, r.text);
  return r.body.clients.map((c: any) => [c.addr, c.state, c.outcome]);
};

test('a MULTICAST restore runs one udp-sender for the room; the PC joins, the whole stream reaches it, its job is done on its answer', async () => {
  const x = await site();
  const stream = await EventStreamClient.open(x.s.port, 'types=multicast.*');
  try {
    const agent = await x.connect('127.0.0.1');
    const out = path.join(x.dir, 'pc.img');
    x.receiveOn(agent, out);
    const r = await x.restore(['127.0.0.1']);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.clients, [{ addr: '127.0.0.1', outcome: 'sent' }]);
    const sent = await agent.waitFor('image/restore');
    assert.match(sent.body.type, /^MULTICAST:9\d{3}$/, 'the agent is told the session by its type, for its ogLive hook');
    assert.equal(sent.body.repository, '127.0.0.1');
    const done = await within(
      stream.waitFor((e) => e.type === 'multicast.session' && e.data.state === 'done', 'the session done', 30_000),
      31_000,
      'the session to end',
    );
    assert.equal(done.data.job, r.body.job);
    await eventually(async () => (await jobLines(x, r.body.job))[0][1] === 'done', 'the job line done on the agent answer', 10_000);
    const session = await sessionOfJob(x, r.body.job);
    assert.equal(session.state, 'done');
    assert.deepEqual(session.image, { id: x.image, name: 'lab' });
    assert.equal(session.address, '127.0.0.1', "the server's address on the room's network (127.0.0.0/8)");
    assert.equal(session.interface, 'lo');
    assert.deepEqual([session.min_receivers, session.expected, session.joined, session.size, session.bytes], [1, 1, 1, size, size]);
    assert.ok(session.rate > 0, 'a rate');
    assert.deepEqual(
      session.clients.map((c: any) => [c.addr, c.state, c.bytes, c.job, c.joined !== null, c.ended !== null]),
      [['127.0.0.1', 'done', size, r.body.job, true, true]],
    );
    assert.ok(readFileSync(out).equals(readFileSync(x.file)), 'the PC got the image byte for byte');
    const told = stream.events.filter((e) => e.type === 'multicast.client').map((e) => e.data.state);
    assert.deepEqual(told, ['joined', 'done'], 'multicast.client events: joined, then done');
    const partitions = (await x.s.get(`/image/clients?id=${x.image}`)).body;
    assert.deepEqual(partitions.clients, ['127.0.0.1'], "the partition holds the image: the agent's answer stands");
    const metrics = (await x.s.get('/metrics')).text;
    assert.match(metrics, /ogserve_multicast_sessions_total\{state="done"\} 1/);
    assert.match(metrics, new RegExp(`ogserve_multicast_bytes_total ${size}`));
    assert.match(metrics, /ogserve_multicast_senders 0/);
    const listed = (await x.s.get('/multicast/sessions')).body.sessions;
    assert.deepEqual(
      listed.map((s: any) => [s.id, s.state, s.states]),
      [[session.id, 'done', { done: 1 }]],
    );
  } finally {
    stream.close();
    await x.close();
  }
});

test('a second request for the image and room joins the waiting session (one sender); cancel stops it and fails every job line; retry sends them the image by unicast', async () => {
  const x = await site({ max_wait_s: 600 }, ['127.0.0.1', '127.0.0.2']);
  try {
    const [one, two] = [await x.connect('127.0.0.1'), await x.connect('127.0.0.2')];
    // Neither runs a receiver: the sender waits.
    for (const agent of [one, two]) agent.on('image/restore', { none: true });
    const first = await x.restore(['127.0.0.1']);
    assert.equal(first.status, 200, first.text);
    const second = await x.restore(['127.0.0.2']);
    assert.equal(second.status, 200, second.text);
    const [a, b] = [await one.waitFor('image/restore'), await two.waitFor('image/restore')];
    assert.equal(a.body.type, b.body.type, 'the second request joins the session: the same port');
    await eventually(() => x.ns.pidsOf('udp-sender').length === 1, 'one sender');
    const sessions = (await x.s.get('/multicast/sessions')).body.sessions;
    assert.equal(sessions.length, 1, 'one session');
    const id = sessions[0].id;
    const waiting = await x.session(id);
    assert.deepEqual(
      waiting.clients.map((c: any) => [c.addr, c.state, c.job]),
      [
        ['127.0.0.1', 'expected', first.body.job],
        ['127.0.0.2', 'expected', second.body.job],
      ],
    );
    assert.equal(waiting.state, 'waiting');
    assert.equal(waiting.min_receivers, 1, 'the sender waits for the PCs of the request that started it');

    // A token limited to another room sees no such session; one limited to the lab's sees it whole.
    const center = (await x.s.post('/center/add', { name: 'Other' })).body.id;
    const other = (await x.s.post('/room/add', { center, name: 'Other', netmask: '255.255.255.0' })).body.id;
    const outside = (await x.s.post('/tokens', { name: 'outside', role: 'admin', rooms: [other] })).body.secret;
    const inside = (await x.s.post('/tokens', { name: 'inside', role: 'reader', rooms: [x.room] })).body.secret;
    const as = (secret: string) => ({ Authorization: secret });
    assert.equal((await x.s.request('GET', `/multicast/sessions/${id}`, undefined, as(outside))).status, 404);
    assert.deepEqual((await x.s.request('GET', '/multicast/sessions', undefined, as(outside))).body.sessions, []);
    assert.equal((await x.s.request('DELETE', `/multicast/sessions/${id}`, undefined, as(outside))).status, 404);
    assert.equal((await x.s.request('GET', `/multicast/sessions/${id}`, undefined, as(inside))).body.clients.length, 2);
    assert.equal((await x.s.request('DELETE', `/multicast/sessions/${id}`, undefined, as(inside))).status, 403, 'a reader may not cancel');

    const cancelled = await x.s.request('DELETE', `/multicast/sessions/${id}`);
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.state, 'cancelled');
    assert.equal(cancelled.body.reason, 'cancelled by api_token');
    assert.deepEqual(
      cancelled.body.clients.map((c: any) => c.state),
      ['cancelled', 'cancelled'],
    );
    assert.deepEqual(x.ns.pidsOf('udp-sender'), [], 'the sender is gone');
    for (const [job, ip] of [
      [first.body.job, '127.0.0.1'],
      [second.body.job, '127.0.0.2'],
    ] as const)
      await eventually(
        async () =>
          JSON.stringify(await jobLines(x, job)) === JSON.stringify([[ip, 'failed', `multicast session ${id} was cancelled by api_token`]]),
        `job ${job}: its PC failed, saying the session was cancelled: ${JSON.stringify(await jobLines(x, job))}`,
      );
    const again = await x.s.request('DELETE', `/multicast/sessions/${id}`);
    assert.equal(again.status, 400);
    assert.equal(again.body.error, 'conflict');

    // The agents still run their restore (they never answered): free them, then retry.
    for (const agent of [one, two]) agent.write(answerBytes(500, {}));
    await x.settled('127.0.0.1');
    await x.settled('127.0.0.2');
    for (const agent of [one, two])
      agent.on('image/restore', (request) => ({
        body: { disk: request.body.disk, partition: request.body.partition, image_id: request.body.id },
      }));
    const retry = await x.s.post(`/multicast/sessions/${id}/retry`, {});
    assert.equal(retry.status, 200, retry.text);
    assert.deepEqual(
      retry.body.clients.map((c: any) => c.outcome),
      ['sent', 'sent'],
    );
    assert.equal((await one.waitFor('image/restore', 1)).body.type, 'UNICAST', 'by unicast, as asked by default');
    await eventually(async () => (await jobLines(x, retry.body.job)).every((l: string[]) => l[1] === 'done'), 'the retry job done');
    const refused = await x.s.post(`/multicast/sessions/${id}/retry`, { type: 'MULTICAST' });
    assert.equal(refused.status, 400, 'a retry is by another type');
    assert.equal(refused.body.field, 'type');
  } finally {
    await x.close();
  }
});

test('a sender that dies fails its session with its exit reason; one nobody joins fails after max_wait_s; an answer without the stream fails its job', async () => {
  const x = await site({ max_wait_s: 2 });
  try {
    const agent = await x.connect('127.0.0.1');
    agent.on('image/restore', { none: true });
    const r = await x.restore(['127.0.0.1']);
    assert.equal(r.status, 200, r.text);
    await eventually(() => x.ns.pidsOf('udp-sender').length === 1, 'the sender running', spawnWaitMs);
    const id = await sessionIdOfJob(x, r.body.job);
    process.kill(x.ns.pidsOf('udp-sender')[0]!, 'SIGKILL');
    await eventually(async () => (await x.session(id)).state === 'failed', 'the session failed');
    const failed = await x.session(id);
    assert.equal(failed.reason, 'udp-sender was ended by SIGKILL');
    assert.deepEqual(
      failed.clients.map((c: any) => [c.state, c.reason]),
      [['missing', 'udp-sender was ended by SIGKILL']],
    );
    await eventually(
      async () =>
        (await jobLines(x, r.body.job))[0][2] ===
        `did not join multicast session ${id} before its stream started (udp-sender was ended by SIGKILL)`,
      'the job line says why',
    );
    agent.write(answerBytes(500, {}));
    await x.settled('127.0.0.1');

    // Nobody joins: after max_wait_s (2 s) the sender gives up.
    agent.on('image/restore', { none: true });
    const lonely = await x.restore(['127.0.0.1']);
    assert.equal(lonely.status, 200, lonely.text);
    const second = await sessionIdOfJob(x, lonely.body.job);
    await eventually(async () => (await x.session(second)).state === 'failed', 'the lonely session failed', 15_000);
    assert.equal((await x.session(second)).reason, 'no PC joined within 2 s (multicast.max_wait_s)');
    agent.write(answerBytes(500, {}));
    await x.settled('127.0.0.1');

    // An ogLive without the multicast hook restores nothing and answers 200: the job says so.
    const partitionsBefore = (await x.s.get(`/image/clients?id=${x.image}`)).body.clients;
    agent.on('image/restore', (request) => ({
      body: { disk: request.body.disk, partition: request.body.partition, image_id: request.body.id },
    }));
    const hookless = await x.restore(['127.0.0.1']);
    assert.equal(hookless.status, 200, hookless.text);
    await eventually(async () => (await jobLines(x, hookless.body.job))[0][1] === 'failed', 'the answer failed');
    const third = await sessionIdOfJob(x, hookless.body.job);
    assert.deepEqual((await jobLines(x, hookless.body.job))[0].slice(1), [
      'failed',
      `multicast session ${third} failed: its agent answered before it joined the stream`,
    ]);
    assert.deepEqual((await x.s.get(`/image/clients?id=${x.image}`)).body.clients, partitionsBefore, 'its partition is not marked');
    await eventually(async () => (await x.session(third)).state === 'failed', 'that session ends too (nobody joins)', 15_000);
  } finally {
    await x.close();
  }
});

test('refused: a PC the inventory does not know, a damaged image, an image without its file, a room no address of this server is in, a queued step; no sender is started', async () => {
  const x = await site();
  try {
    const unknown = await x.restore(['127.0.0.9']);
    assert.equal(unknown.status, 400, unknown.text);
    assert.equal(unknown.body.field, 'clients');
    assert.match(unknown.body.message, /127\.0\.0\.9 is none/);

    const center = (await x.s.post('/center/add', { name: 'Far' })).body.id;
    const far = (await x.s.post('/room/add', { center, name: 'Far lab', netmask: '255.255.255.0' })).body.id;
    await addClient(x.s, far, '10.200.7.20', macFor(200));
    const away = await x.restore(['10.200.7.20']);
    assert.equal(away.status, 400, away.text);
    assert.match(
      away.body.message,
      new RegExp(
        `no address of this server is in room 'Far lab''s network 10\\.200\\.7\\.0/24: name the interface its stream leaves from in multicast\\.interfaces\\["${far}"\\]`,
      ),
    );

    // An image the check found changed (images' integrity): refused before any session, as any restore of it.
    await x.s.app.database.query("update images set file_state = 'damaged', damage = 'changed: sha256' where id = 1");
    const damaged = await x.restore(['127.0.0.1']);
    assert.deepEqual([damaged.status, damaged.body.error, damaged.body.field], [400, 'image_damaged', 'id'], damaged.text);
    await x.s.app.database.query("update images set file_state = 'available', damage = '' where id = 1");

    rmSync(x.file);
    const nofile = await x.restore(['127.0.0.1']);
    assert.equal(nofile.status, 400, nofile.text);
    assert.equal(nofile.body.field, 'id');
    assert.match(nofile.body.message, /has no file in the repository directory/);

    const command = x.s.app.container.resolve(AgentCommands).get('image_restore')!;
    assert.throws(
      () => command.check!({ disk: 1, partition: 1, id: 1, type: 'MULTICAST' } as never),
      /'type' must be one of UNICAST, UNICAST-DIRECT, TIPTORRENT$/,
    );
    assert.deepEqual(x.ns.pidsOf('udp-sender'), [], 'no sender');
    assert.deepEqual((await x.s.get('/multicast/sessions')).body.sessions, [], 'no session kept');
    const missing = await x.s.get('/multicast/sessions/99');
    assert.equal(missing.status, 404);
  } finally {
    await x.close();
  }
});

test('without the multicast plugin, MULTICAST is refused naming type', async () => {
  const s = await startServer({ config: { plugins: ['inventory', 'agents', 'transfers', 'images'] } });
  try {
    const r = await s.post('/image/restore', { clients: ['127.0.0.1'], disk: '1', partition: '1', id: '1', type: 'MULTICAST' });
    assert.equal(r.status, 400);
    assert.equal(r.body.field, 'type');
    assert.equal(r.body.message, "'type' must be one of UNICAST, UNICAST-DIRECT, TIPTORRENT");
  } finally {
    await s.close();
  }
});

test('at start, a sender a killed ogserve left is ended and its session marked failed, its PCs failed or missing', async () => {
  const ns = makeLoopbackNamespace();
  const dir = makeTestDir();
  try {
    const wrapper = path.join(dir, 'udp-sender');
    writeFileSync(wrapper, `#!/bin/sh\nexec ip netns exec ${ns.name} udp-sender "$@"\n`);
    chmodSync(wrapper, 0o755);
    const multicastDir = path.join(dir, 'multicast');
    const config = {
      plugins: ['inventory', 'agents', 'transfers', 'images', 'jobs', 'multicast'],
      multicast: { udp_sender: wrapper, directory: multicastDir },
    };
    const image = path.join(dir, 'lab.img');
    writeFileSync(image, Buffer.alloc(1000));
    const first = await startServer({ dir, config });
    let orphan: SenderProcess;
    try {
      // What a SIGKILL of ogserve mid-session leaves (the lab test kills a real one): its
      // sender, still waiting, with its record; the session's rows, still running.
      const options = {
        program: wrapper,
        file: image,
        port: 9100,
        address: '127.0.0.1',
        minReceivers: 1,
        maxWaitS: 600,
        retriesUntilDrop: 10,
        maxBitrate: '',
      };
      orphan = new SenderProcess(options, { dir: multicastDir, session: 4242 }, () => {});
      const em = first.app.database.fork();
      const now = Date.now();
      await em.insert(SessionEntity, {
        id: 4242,
        ...{ imageId: 1, imageName: 'lab', roomId: 1, roomName: 'Room', jobId: null, state: 'sending', reason: '', port: 9100 },
        ...{ address: '127.0.0.1', device: 'lo', minReceivers: 2, size: 1000, bytes: 500, retransmits: 0, rate: 0, params: '{}' },
        ...{ who: 'api_token', host: 'here', createdAt: now, startedAt: now, finishedAt: null },
      });
      await em.insert(SessionClientEntity, {
        sessionId: 4242,
        jobId: null,
        ip: '127.0.0.1',
        state: 'joined',
        reason: '',
        slow: 0,
        bytes: 0,
        joinedAt: now,
        endedAt: null,
      });
      await em.insert(SessionClientEntity, {
        sessionId: 4242,
        jobId: null,
        ip: '127.0.0.2',
        state: 'expected',
        reason: '',
        slow: 0,
        bytes: 0,
        joinedAt: null,
        endedAt: null,
      });
      await eventually(() => ns.pidsOf('udp-sender').length === 1, 'the sender running', spawnWaitMs);
    } finally {
      await first.close();
    }
    assert.equal(ns.pidsOf('udp-sender').length, 1, 'a stop ends only the senders it runs: the left one is still there');
    const pid = orphan!.pid;
    const second = await startServer({ dir, config });
    try {
      assert.deepEqual(ns.pidsOf('udp-sender'), [], 'the next start ended it');
      assert.equal((await orphan!.exited).signal, 'SIGKILL');
      const session = (await second.get('/multicast/sessions/4242')).body;
      const reason = `ogserve stopped without ending its sender (pid ${pid}), which its next start ended`;
      assert.deepEqual([session.state, session.reason, session.finished !== null], ['failed', reason, true]);
      assert.deepEqual(
        session.clients.map((c: any) => [c.addr, c.state, c.reason]),
        [
          ['127.0.0.1', 'failed', reason],
          ['127.0.0.2', 'missing', reason],
        ],
      );
      assert.ok(
        second.logs.some(
          (l) =>
            l.level === 'warn' &&
            l.msg === `multicast session 4242: ended udp-sender (pid ${pid}) that ogserve left running when it was stopped`,
        ),
        'the start says what it ended',
      );
    } finally {
      await second.close();
    }
  } finally {
    ns.remove();
    await removeTestStore(dir);
  }
});

test.run();
