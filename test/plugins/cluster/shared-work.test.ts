// PostgreSQL only: several instances on one database (the other passes skip this file).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Scheduler } from '../../../plugins/scheduler';
import { eventually } from '../../support/fake-agent';
import { type ClusterSite, startClusterSite } from '../../support/cluster-site';
import { addresses } from '../../support/lab';
import { parsePrometheus } from '../../support/prometheus';
import { defaultConfiguration } from '../../support/fake-agent';
import { macFor } from '../../support/fixtures';
import { testEngine } from '../../support/test-db';
import { UdpReceiver } from '../../support/udp-receiver';

const withScheduler = { plugins: ['inventory', 'agents', 'wol', 'shell', 'groups', 'scheduler', 'metrics', 'cluster'] };

/** The running instances that hold `role`. */
function holders(site: ClusterSite, role: string, running: number[]): number[] {
  return running.filter((i) => site.servers[i]!.app.cluster.holds(role));
}

if (testEngine === 'postgresql') {
  test('one instance runs the scheduler; commands queued through any instance run once; another takes over when it stops', async () => {
    const site = await startClusterSite({ instances: 3, ips: addresses('127.0.1', 2), config: withScheduler });
    try {
      let running = [0, 1, 2];
      const leader = await eventually(() => {
        const held = holders(site, 'scheduler', running);
        return held.length === 1 ? held[0]! + 1 : undefined;
      }, 'one instance to run the scheduler').then((n) => n! - 1);
      const others = running.filter((i) => i !== leader) as [number, number];
      const [ip1, ip2] = site.ips as [string, string];
      const agent = await site.connect(others[0], ip1);
      // The real agent answers run/schedule 200 with no body.
      agent.on('shell/run', { body: { out: 'hi\n', retcode: 0 } }, true).on('run/schedule', { status: 200 }, true);
      const r = await site.servers[others[1]]!.post('/schedule/command', { clients: [ip1], command: 'run', params: { run: 'echo hi' } });
      assert.is(r.status, 200, r.text);
      const scheduler = site.servers[others[1]]!.app.container.resolve(Scheduler);
      await eventually(async () => (await scheduler.actions({ session: r.body.session }))[0]?.state === 'done', 'the action done').catch(
        async (error: Error) => {
          const actions = await scheduler.actions({ session: r.body.session });
          throw new Error(`${error.message}: ${JSON.stringify(actions.map((a) => [a.ip, a.state, a.result, a.note]))}`);
        },
      );
      assert.is((await scheduler.actions({ session: r.body.session }))[0]!.result, 'success');

      // The instance running the scheduler stops: another one takes over within seconds.
      await site.stop(leader);
      running = others;
      const next = await eventually(
        () => {
          const held = holders(site, 'scheduler', running);
          return held.length === 1 ? held[0]! + 1 : undefined;
        },
        'another instance to run the scheduler',
        8000,
      ).then((n) => n! - 1);
      assert.ok(others.includes(next));
      const agent2 = await site.connect(next === others[0] ? others[1] : others[0], ip2);
      agent2.on('shell/run', { body: { out: 'hi\n', retcode: 0 } }, true).on('run/schedule', { status: 200 }, true);
      const r2 = await site.servers[next]!.post('/schedule/command', { clients: [ip1, ip2], command: 'run', params: { run: 'echo two' } });
      assert.is(r2.status, 200, r2.text);
      await eventually(
        async () => (await scheduler.actions({ session: r2.body.session })).every((a) => a.state === 'done'),
        'both actions done',
      ).catch(async (error: Error) => {
        const actions = await scheduler.actions({ session: r2.body.session });
        throw new Error(`${error.message}: ${JSON.stringify(actions.map((a) => [a.ip, a.state, a.result, a.note]))}`);
      });
      // Nothing ran twice.
      assert.equal(
        agent.requests.filter((q) => q.path === 'shell/run').map((q) => q.body.run),
        ['echo hi', 'echo two'],
      );
      assert.equal(
        agent2.requests.filter((q) => q.path === 'shell/run').map((q) => q.body.run),
        ['echo two'],
      );
    } finally {
      await site.close();
    }
  });

  test('wake-on-LAN leaves from the instance whose wol.networks reach the client, or from every one when none does', async () => {
    const first = await UdpReceiver.bind('127.0.3.255');
    const port = first.port;
    const receivers = [first, await UdpReceiver.bind('127.0.4.255', port)];
    const site = await startClusterSite({
      instances: 2,
      ips: ['127.0.3.5', '127.0.4.5'],
      config: { wol: { port } },
      configOf: (i) => ({ wol: { networks: i === 0 ? ['127.0.2.0/24'] : ['127.0.3.0/24'] } }),
    });
    const sentBy = async (i: number) =>
      parsePrometheus((await site.servers[i]!.get('/metrics')).text).value('ogserve_wol_packets_total') ?? 0;
    try {
      // Instance b lists 127.0.3.0/24: it sends, though the request came to a.
      await eventually(async () => {
        const r = await site.servers[0]!.post('/wol', { clients: ['127.0.3.5'], type: 'broadcast' });
        return r.body.sent.length === 1;
      }, 'the wake accepted');
      await eventually(() => receivers[0]!.packets.length >= 1, 'the packet');
      assert.is(await sentBy(0), 0, 'a sent nothing');
      assert.is(await sentBy(1), 1, 'b sent it');
      // Both instances show it WOL_SENT.
      for (let at = 0; at < 2; at++) await site.listed(at, '127.0.3.5', (e) => e?.state === 'WOL_SENT');
      // No instance lists 127.0.4.0/24: both send.
      const r = await site.servers[0]!.post('/wol', { clients: ['127.0.4.5'], type: 'broadcast' });
      assert.equal(r.body.sent, ['127.0.4.5']);
      await eventually(() => receivers[1]!.packets.length === 2, 'a packet from each instance');
    } finally {
      await site.close();
      for (const receiver of receivers) await receiver.close();
    }
  });

  test('a write through one instance is seen through every other at once', async () => {
    const site = await startClusterSite({ instances: 2, ips: addresses('127.0.1', 1) });
    try {
      const [a, b] = site.servers as [NonNullable<(typeof site.servers)[0]>, NonNullable<(typeof site.servers)[0]>];
      // b reads (and caches) before a writes.
      assert.is((await b.get('/scopes')).status, 200);
      assert.is((await b.get('/client/info', { client: ['127.0.1.9'] })).status, 400);
      const added = await a.post('/client/add', { name: 'late', ip: '127.0.1.9', mac: 'aabbccddeeff', room: site.room });
      assert.is(added.status, 200, added.text);
      await eventually(async () => (await b.get('/client/info', { client: ['127.0.1.9'] })).status === 200, 'the client through b', 2000);
      await eventually(async () => (await b.get('/scopes')).text.includes('127.0.1.9'), "the client in b's scopes", 2000);
      // Its agent is welcome at b at once.
      await site.connect(1, '127.0.1.9');
      // A boot mode set through b shows through a.
      assert.is((await a.get('/client/info', { client: ['127.0.1.9'] })).body.boot, 'ogLive');
      const mode = await b.post('/mode', { clients: ['127.0.1.9'], mode: 'pxe' });
      assert.is(mode.status, 200, mode.text);
      await eventually(
        async () => {
          const info = await a.get('/client/info', { client: ['127.0.1.9'] });
          return info.body.boot === 'pxe';
        },
        'the mode through a',
        2000,
      );
      // A room renamed through b shows in a's scopes.
      assert.is((await b.post('/room/update', { id: site.room, name: 'Renamed', netmask: '255.255.255.0' })).status, 200);
      await eventually(async () => (await a.get('/scopes')).text.includes('Renamed'), "the room in a's scopes", 2000);
    } finally {
      await site.close();
    }
  });

  test("boot files, cache contents and shell output made through one instance are every instance's", async () => {
    const site = await startClusterSite({ instances: 3, ips: addresses('127.0.1', 2) });
    try {
      const [b, c] = [site.servers[1]!, site.servers[2]!];
      const biosFile = (at: number, n: number) =>
        path.join(site.servers[at]!.dir, 'tftpboot', 'menu.lst', `01-${macFor(n).match(/../g)!.join('-').toUpperCase()}`);
      // The clients were added through a: every instance wrote their files.
      for (let at = 0; at < 3; at++) await eventually(() => existsSync(biosFile(at, 1)), `${site.names[at]} to have the boot file`, 3000);
      assert.is((await b.post('/mode', { clients: [site.ips[0]], mode: 'pxe' })).status, 200);
      for (let at = 0; at < 3; at++)
        await eventually(
          () => readFileSync(biosFile(at, 1), 'utf8') === readFileSync(biosFile(1, 1), 'utf8'),
          `${site.names[at]}'s file in mode pxe`,
          3000,
        );
      assert.is((await c.post('/client/delete', { clients: [site.ips[1]] })).status, 200);
      for (let at = 0; at < 3; at++) await eventually(() => !existsSync(biosFile(at, 2)), `${site.names[at]} to remove the file`, 3000);

      // Cache contents a's agent reported are listed through b; a later report too.
      // A live agent's refresh with a cache partition (only such a client lists images).
      const withCache = (cache: unknown[], cacheKiB = '20971520') => ({
        ...defaultConfiguration,
        partition_setup: [
          ...defaultConfiguration.partition_setup,
          { disk: '1', disk_type: '', partition: '3', code: 'ca', filesystem: 'CACHE', os: '', size: cacheKiB, used_size: '5' },
        ],
        cache,
      });
      const ubuntu = { name: 'ubuntu', size: 4096, checksum: 'ab12' };
      const agent = await site.connect(0, site.ips[0]!, { configuration: withCache([ubuntu]) });
      const listed = async () =>
        (await b.get('/cache/list', { clients: [site.ips[0]] })).body.clients?.[0]?.images?.map((i: { name: string }) => i.name);
      await eventually(async () => JSON.stringify(await listed()) === '["ubuntu"]', 'the cache through b', 3000);
      agent.on('refresh', { body: withCache([ubuntu, { name: 'windows', size: 8192, checksum: 'cd34' }]) });
      assert.is((await c.post('/refresh', { clients: [site.ips[0]] })).body.clients[0].outcome, 'sent');
      await eventually(async () => JSON.stringify(await listed()) === '["ubuntu","windows"]', 'the new cache through b', 3000);
      // b keeps the cache partition's size in memory: a resize stored by a shows through b.
      const cacheSize = async () => (await b.get('/cache/list', { clients: [site.ips[0]] })).body.clients?.[0]?.cache_size;
      assert.is(await cacheSize(), 20971520 * 1024);
      agent.on('refresh', { body: withCache([ubuntu], '10485760') });
      assert.is((await c.post('/refresh', { clients: [site.ips[0]] })).body.clients[0].outcome, 'sent');
      await eventually(async () => (await cacheSize()) === 10485760 * 1024, 'the resized cache through b', 3000);

      // Shell output of a command asked through c shows through b. The resize shows once the
      // refresh's first handler stored it, while c may still run the others: the agent is idle
      // (and a command to it not busy) once a, which holds it, heard that c stored the answer.
      await site.listed(0, site.ips[0]!, (e) => e !== undefined && e.state !== 'BSY');
      agent.on('shell/run', { body: { cmd: 'df', out: 'disk free\n', retcode: 0 } });
      assert.is((await c.post('/shell/run', { clients: [site.ips[0]], run: 'df' })).body.clients[0].outcome, 'sent');
      const output = await eventually(
        async () => (await b.post('/shell/output', { clients: [site.ips[0]] })).body.clients[0],
        'the output through b',
        3000,
      );
      assert.equal({ cmd: output.cmd, output: output.output, retcode: output.retcode }, { cmd: 'df', output: 'disk free\n', retcode: 0 });
    } finally {
      await site.close();
    }
  });

  test('a token revoked through one instance is refused by the others at once', async () => {
    const site = await startClusterSite({ instances: 2, ips: addresses('127.0.1', 1) });
    try {
      const [a, b] = [site.servers[0]!, site.servers[1]!];
      const made = await a.post('/tokens', { name: 'lab-reader', role: 'reader' });
      assert.is(made.status, 200, made.text);
      const asToken = (s: typeof a) => s.request('GET', '/scopes', undefined, { Authorization: made.body.secret });
      await eventually(async () => (await asToken(b)).status === 200, 'b to accept the new token');
      // b has just read its tokens: without being told, it would serve the revoked one for another second.
      assert.is((await b.get('/tokens')).status, 200);
      assert.is((await a.request('DELETE', '/tokens', { name: 'lab-reader' })).status, 200);
      await eventually(async () => (await asToken(b)).status === 401, 'b to refuse the revoked token', 700);
    } finally {
      await site.close();
    }
  });

  test('an instance whose link to the others broke reads again what they changed meanwhile', async () => {
    const site = await startClusterSite({ instances: 2, ips: addresses('127.0.1', 1) });
    try {
      const [a, b] = [site.servers[0]!, site.servers[1]!];
      // b keeps the clients in memory.
      assert.is((await b.get('/client/info', { client: [site.ips[0]] })).status, 200);
      // b's session to the others ends (as when the database restarts); a writes before b is back.
      const [ended] = await a.app.database.query<{ ended: boolean }>(
        "select pg_terminate_backend(pid) as ended from pg_stat_activity where application_name = 'ogserve:b'",
      );
      assert.ok(ended?.ended, "b's session ended");
      const added = await a.post('/client/add', { name: 'meanwhile', ip: '127.0.1.50', mac: 'aabbccdd0050', room: site.room });
      assert.is(added.status, 200, added.text);
      await eventually(async () => (await b.get('/client/info', { client: ['127.0.1.50'] })).status === 200, 'b to know the client', 5000);
      await eventually(async () => (await b.get('/cluster')).body.instances.length === 2, 'b to be back among the instances', 5000);
    } finally {
      await site.close();
    }
  });
}

test.run();
