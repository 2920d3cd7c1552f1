// PostgreSQL only: several instances on one database (the other passes skip this file).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AgentLink, AgentLinkError } from '../../../plugins/agents';
import { eventually, within } from '../../support/fake-agent';
import { startServer } from '../../support/server';
import { clusterConfig, heartbeat, startClusterSite } from '../../support/cluster-site';
import { EventStreamClient } from '../../support/event-stream';
import { forkSwarm } from '../../support/swarm';
import { addresses } from '../../support/lab';
import { testEngine } from '../../support/test-db';

// Several instances share one PostgreSQL database: the suite on PostgreSQL runs these.
if (testEngine === 'postgresql') {
  test('messages from one instance arrive in the order sent, a long one (through a row) followed by short ones included', async () => {
    const site = await startClusterSite({ instances: 2, ips: addresses('127.0.1', 1) });
    try {
      const heard: number[] = [];
      site.servers[1]!.app.cluster.on<{ n: number }>('test.order', ({ n }) => heard.push(n));
      const sender = site.servers[0]!.app.cluster;
      // Long (over NOTIFY's 8,000 bytes) and short in turn, none awaited before the next is sent.
      const sends = Array.from({ length: 20 }, (_, n) =>
        sender.send('*', 'test.order', n % 4 === 0 ? { n, padding: 'x'.repeat(20_000) } : { n }),
      );
      await Promise.all(sends);
      await eventually(() => heard.length === 20, 'every message heard');
      assert.equal(
        heard,
        Array.from({ length: 20 }, (_, n) => n),
      );
    } finally {
      await site.close();
    }
  });

  test('an instance busy sending thousands of messages still beats its heartbeat: the others keep it as a member', async () => {
    const site = await startClusterSite({ instances: 2, ips: addresses('127.0.1', 1) });
    try {
      const [sender, watcher] = [site.servers[0]!.app.cluster, site.servers[1]!.app.cluster];
      watcher.on('test.burst', () => undefined);
      assert.ok(watcher.members().includes(sender.self), 'a member before the burst');
      let dropped = false;
      const watch = setInterval(() => {
        if (!watcher.members().includes(sender.self)) dropped = true;
      }, 20);
      const started = Date.now();
      // More statements than the session gets through within the expiry, none awaited before the next.
      await Promise.all(Array.from({ length: 30_000 }, (_, n) => sender.send('*', 'test.burst', { n })));
      const burstMs = Date.now() - started;
      clearInterval(watch);
      assert.ok(burstMs > heartbeat.expiry_s * 1000, `the burst took ${burstMs} ms, no longer than the expiry: it shows nothing`);
      assert.not.ok(dropped, `instance ${sender.self} was taken for gone during a burst of ${burstMs} ms`);
    } finally {
      await site.close();
    }
  });

  test('every instance lists every agent, whichever instance it connected to', async () => {
    const site = await startClusterSite({ instances: 3, ips: addresses('127.0.1', 6) });
    try {
      for (const [i, ip] of site.ips.entries()) await site.connect(i % 3, ip);
      const byAddress = <T extends { addr: string }>(entries: T[]) => [...entries].sort((x, y) => x.addr.localeCompare(y.addr));
      const first = byAddress(await site.clients(0));
      assert.equal(
        first.map((c) => c.addr),
        [...site.ips].sort(),
      );
      for (const entry of first) {
        assert.is(entry.state, 'OPG');
        assert.equal(entry.last_cmd, { result: 'success' });
      }
      // The same entries, speed included, through every instance.
      for (let at = 1; at < 3; at++) assert.equal(byAddress(await site.clients(at)), first);
      // An agent that leaves is gone from every list.
      site.agents[0]!.destroy();
      for (let at = 0; at < 3; at++) await site.listed(at, site.ips[0]!, (e) => e === undefined);
    } finally {
      await site.close();
    }
  });

  test('a command through an instance that does not hold the agent: outcome, answer stored, shown everywhere', async () => {
    const site = await startClusterSite({ instances: 3, ips: addresses('127.0.1', 2) });
    try {
      const [held, other] = site.ips as [string, string];
      const agent = await site.connect(0, held);
      await site.connect(1, other);
      agent.on('shell/run', { body: { cmd: 'uname', out: 'Linux\n', retcode: 0 } });
      const c = site.servers[2]!;
      const r = await c.post('/shell/run', { clients: [held, '127.0.1.99'], run: 'uname', echo: true });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.clients, [
        { addr: held, outcome: 'sent' },
        { addr: '127.0.1.99', outcome: 'not_connected' },
      ]);
      assert.ok(Number.isInteger(r.body.job), 'the job of the instance asked');
      const seen = await agent.waitFor('shell/run');
      assert.equal(seen.body, { run: 'uname', echo: true });
      // The output is kept where the command was asked, as on one instance.
      const output = await eventually(async () => {
        const o = await c.post('/shell/output', { clients: [held] });
        return o.body.clients.length === 1 ? o.body.clients[0] : undefined;
      }, 'the output on the asking instance');
      assert.is(output.output, 'Linux\n');
      assert.is(output.cmd, 'uname');
      for (let at = 0; at < 3; at++) await site.listed(at, held, (e) => e?.state === 'OPG' && e.last_cmd.result === 'success');
      // Hardware stored in the shared database through the third instance.
      agent.on('hardware', { body: { hardware: 'cpu=Intel Xeon\nmem=8 GiB\n' } });
      const h = await c.post('/hardware', { clients: [held] });
      assert.equal(h.body.clients, [{ addr: held, outcome: 'sent' }]);
      await agent.waitFor('hardware');
      const shown = await eventually(async () => {
        const g = await site.servers[1]!.get('/hardware', { client: [held] });
        return g.status === 200 && g.body.hardware?.length > 0 ? g.body : undefined;
      }, 'the hardware through another instance');
      assert.ok(JSON.stringify(shown).includes('Intel Xeon'), JSON.stringify(shown));
      // A busy agent is busy through every instance.
      agent.on('software', () => ({ status: 200, body: { software: [] }, delayMs: 800 }));
      assert.equal((await c.post('/software', { clients: [held], disk: 1, partition: 1 })).body.clients[0].outcome, 'sent');
      assert.equal((await site.servers[1]!.post('/refresh', { clients: [held] })).body.clients[0].outcome, 'busy');
    } finally {
      await site.close();
    }
  });

  test('a probe through another instance reaches the agent and the state shows everywhere', async () => {
    const site = await startClusterSite({ instances: 2, ips: addresses('127.0.1', 1) });
    try {
      const ip = site.ips[0]!;
      const agent = await site.connect(0, ip);
      agent.on('probe', { body: { status: 'VDI', speed: 1000 } });
      const r = await site.servers[1]!.post('/clients', { clients: [ip] });
      assert.equal(r.body, { clients: [{ addr: ip, outcome: 'sent' }] });
      await agent.waitFor('probe');
      for (let at = 0; at < 2; at++) await site.listed(at, ip, (e) => e?.state === 'VDI' && e.speed === 1000);
    } finally {
      await site.close();
    }
  });

  test('an agent held elsewhere found busy for a moment is heard idle again by the instance that found it busy', async () => {
    // The scheduler and pending wakes wait for 'agent.idle' to try a busy agent again. A
    // command shorter than the holder's publishing round (200 ms) never shows BSY to the
    // others: without being told again, the asker would wait for its next sweep (30 s).
    const site = await startClusterSite({ instances: 2, ips: addresses('127.0.1', 1) });
    try {
      const ip = site.ips[0]!;
      const [holder, asker] = [site.servers[0]!, site.servers[1]!];
      const agent = await site.connect(0, ip);
      agent.on('shell/run', { body: { cmd: 'ls', out: '', retcode: 0 }, delayMs: 60 }, true);
      const heard: string[] = [];
      asker.app.events.on('test', 'agent.idle', ({ client }) => void heard.push(client));
      let busyRounds = 0;
      for (let tries = 0; busyRounds < 5 && tries < 40; tries++) {
        heard.length = 0;
        const before = agent.requests.filter((q) => q.path === 'shell/run').length;
        const held = holder.post('/shell/run', { clients: [ip], run: 'ls' });
        await agent.waitFor('shell/run', before);
        const r = await asker.post('/shell/run', { clients: [ip], run: 'ls' });
        await held;
        if (r.body.clients[0].outcome !== 'busy') {
          await site.listed(0, ip, (e) => e?.state !== 'BSY');
          continue;
        }
        busyRounds++;
        await eventually(() => heard.includes(ip), 'the asker to hear the agent idle', 2000);
        await site.listed(1, ip, (e) => e?.state !== 'BSY');
      }
      assert.is(busyRounds, 5, 'the asker found the agent busy five times');
    } finally {
      await site.close();
    }
  });

  test('an instance that stops: its agents leave every list, commands in flight through it fail', async () => {
    const site = await startClusterSite({ instances: 3, ips: addresses('127.0.1', 2) });
    try {
      const [onB, onC] = site.ips as [string, string];
      const agent = await site.connect(1, onB);
      await site.connect(2, onC);
      agent.on('hardware', { none: true });
      const link = site.servers[0]!.app.container.resolve(AgentLink);
      const dispatch = await link.dispatch([onB], { method: 'GET', path: 'hardware' });
      assert.equal(dispatch.outcomes, [{ addr: onB, outcome: 'sent' }]);
      await agent.waitFor('hardware');
      await site.stop(1);
      const failure = await within(
        dispatch.answers.get(onB)!.then(
          () => undefined,
          (error: unknown) => error,
        ),
        5000,
        'the answer to fail',
      );
      assert.instance(failure, AgentLinkError);
      assert.is((failure as AgentLinkError).reason, 'disconnected');
      await site.listed(0, onB, (e) => e === undefined);
      await site.listed(2, onB, (e) => e === undefined);
      await site.listed(0, onC);
      // The agent reconnects to an instance still running, and commands reach it again.
      await site.connect(2, onB);
      assert.equal((await site.servers[0]!.post('/refresh', { clients: [onB] })).body.clients[0].outcome, 'sent');
    } finally {
      await site.close();
    }
  });

  test("the event stream of any instance shows every instance's events", async () => {
    const site = await startClusterSite({ instances: 2, ips: addresses('127.0.1', 1) });
    const stream = await EventStreamClient.open(site.servers[1]!.port);
    try {
      const ip = site.ips[0]!;
      await site.connect(0, ip);
      const connected = await stream.waitFor((e) => e.type === 'agent.connected' && e.data.client === ip, 'the connection made on a');
      assert.is(connected.data.name, `pc-${ip}`);
      await stream.waitFor((e) => e.type === 'client.state' && e.data.client === ip && e.data.new === 'OPG', 'its state');
      // Events of b itself still come.
      assert.is((await site.servers[1]!.post('/center/add', { name: 'Other' })).status, 200);
      await stream.waitFor((e) => e.type === 'inventory.created', "b's own event");
    } finally {
      stream.close();
      await site.close();
    }
  });

  test('every relay through an instance that does not hold the agent: outcome and bytes as through the one that does', async () => {
    const site = await startClusterSite({ instances: 3, ips: addresses('127.0.1', 2) });
    try {
      const ip = site.ips[0]!;
      const repository = (await site.servers[0]!.get('/repositories')).body.repositories[0].id;
      const partitions = [{ partition: '1', code: 'LINUX', filesystem: 'EXT4', size: '1048576', format: '1' }];
      const cases: [route: string, body: Record<string, unknown>, path: string][] = [
        ['/refresh', {}, 'refresh'],
        ['/hardware', {}, 'hardware'],
        ['/software', { disk: 1, partition: 2 }, 'software'],
        ['/session', { disk: '1', partition: '2' }, 'session'],
        ['/setup', { type: 'GPT', disk: '1', cache: '0', cache_size: '0', partition_setup: partitions }, 'setup'],
        ['/shell/run', { run: 'ls -l', echo: true }, 'shell/run'],
        ['/cache/delete', { images: ['ubuntu.img'] }, 'cache/delete'],
        ['/cache/fetch', { image: 'ubuntu.img', repository_id: String(repository) }, 'cache/fetch'],
        [
          '/image/create',
          { disk: '1', partition: '2', code: '131', name: 'lab', repository_id: repository, id: '0', group_id: 0, center_id: 0 },
          'image/create',
        ],
        ['/clients', {}, 'probe'],
        ['/poweroff', {}, 'poweroff'],
        ['/reboot', {}, 'reboot'],
        ['/stop', {}, 'stop'],
      ];
      let agent = await site.connect(0, ip);
      for (const [route, body, path] of cases) {
        const raw: string[] = [];
        for (const through of [0, 2]) {
          if (!agent.isConnected) agent = await site.connect(0, ip);
          const before = agent.requests.filter((q) => q.path === path).length;
          const r = await site.servers[through]!.post(route, { clients: [ip], ...body });
          assert.is(r.status, 200, `${route} through ${site.names[through]}: ${r.text}`);
          assert.equal(r.body.clients, [{ addr: ip, outcome: 'sent' }], `${route} through ${site.names[through]}`);
          raw.push((await agent.waitFor(path, before)).raw);
          // The next request finds the agent idle, or a new one after a power command closed it.
          if (['poweroff', 'reboot', 'stop'].includes(path)) {
            await within(agent.closed, 5000, `${route}: the agent gone`);
            await site.listed(0, ip, (e) => e === undefined);
          } else await site.listed(0, ip, (e) => e !== undefined && e.state !== 'BSY');
        }
        assert.is(raw[1], raw[0], `${route}: the agent got the same bytes through either instance`);
      }
    } finally {
      await site.close();
    }
  });

  test('a command to many agents held elsewhere: every answer comes back and is stored, however fast the agents answer', async () => {
    const site = await startClusterSite({ instances: 2, ips: addresses('127.0.1', 250).concat(addresses('127.0.2', 250)) });
    // In another process, the agents answer as soon as asked, right behind the outcomes.
    const swarm = await forkSwarm(site.servers[1]!.app.container.resolve(AgentLink).port(), site.ips);
    try {
      assert.is(swarm.connected, site.ips.length);
      await eventually(
        async () => (await site.clients(0)).filter((c) => c.state === 'OPG' && c.last_cmd.result === 'success').length === site.ips.length,
        'every agent listed through the other instance',
        20_000,
      );
      const link = site.servers[0]!.app.container.resolve(AgentLink);
      const dispatch = await link.dispatch(site.ips, { method: 'GET', path: 'hardware' });
      assert.ok(
        dispatch.outcomes.every((o) => o.outcome === 'sent'),
        JSON.stringify(dispatch.outcomes.filter((o) => o.outcome !== 'sent')),
      );
      const answers = await within(Promise.all(dispatch.answers.values()), 20_000, 'every answer');
      assert.is(answers.filter((a) => a.result === 'success').length, site.ips.length);
    } finally {
      swarm.stop();
      await site.close();
    }
  });

  test('an instance that starts later lists every agent the others already held', async () => {
    const site = await startClusterSite({
      instances: 1,
      ips: addresses('127.0.1', 200).concat(addresses('127.0.2', 200), addresses('127.0.3', 200)),
    });
    const swarm = await forkSwarm(site.servers[0]!.app.container.resolve(AgentLink).port(), site.ips);
    let late: Awaited<ReturnType<typeof startServer>> | undefined;
    try {
      await eventually(
        async () => (await site.clients(0)).filter((c) => c.state === 'OPG').length === site.ips.length,
        'the agents held by a',
        20_000,
      );
      late = await startServer({
        engine: 'postgresql',
        config: { ...clusterConfig('late'), database: site.servers[0]!.app.settings.database },
      });
      const listed = async () => ((await late!.get('/clients')).body.clients as { addr: string }[]).length;
      await eventually(async () => (await listed()) === site.ips.length, 'the newcomer to list them all', 10_000).catch(
        async (error: Error) => {
          throw new Error(`${error.message}: ${await listed()} listed`);
        },
      );
    } finally {
      swarm.stop();
      await late?.close();
      await site.close();
    }
  });
}

test.run();
