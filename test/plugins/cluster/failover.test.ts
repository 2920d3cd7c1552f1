// PostgreSQL only: several instances on one database (the other passes skip this file).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type ChildServer, prepareSite, spawnServer } from '../../support/child-server';
import { clusterConfig } from '../../support/cluster-site';
import { FakeAgent, eventually } from '../../support/fake-agent';
import { addCenter, addClient, addRoom, macFor } from '../../support/fixtures';
import { makeTestDir, removeTestStore } from '../../support/server';
import { connectSide, testEngine } from '../../support/test-db';

const plugins = ['inventory', 'agents', 'wol', 'shell', 'groups', 'scheduler', 'cluster'];
const ips = ['127.0.1.1', '127.0.1.2', '127.0.1.3'];

interface Instance {
  name: string;
  server: ChildServer;
}

async function clusterOf(server: ChildServer): Promise<{ instance: string; instances: string[]; roles: string[] }> {
  const r = await server.get('/cluster');
  assert.is(r.status, 200, r.text);
  return r.body;
}

async function listed(server: ChildServer, ip: string): Promise<{ addr: string; state: string } | undefined> {
  return (await server.get('/clients')).body.clients.find((c: { addr: string }) => c.addr === ip);
}

// Three instances as separate processes on one PostgreSQL database; one is killed outright.
if (testEngine === 'postgresql') {
  test('kill -9 of an instance: its agents move, its command fails once, the scheduler moves, nothing runs twice', async () => {
    const dir = makeTestDir();
    const instances: Instance[] = [];
    const agents: FakeAgent[] = [];
    const side = await (async () => {
      await prepareSite(
        dir,
        async (s) => {
          const room = await addRoom(s, await addCenter(s));
          for (const [i, ip] of ips.entries()) await addClient(s, room, ip, macFor(i + 1));
        },
        { plugins, log: { level: 'warn' } },
      );
      return connectSide(dir);
    })();
    try {
      for (const name of ['a', 'b', 'c'])
        instances.push({ name, server: await spawnServer({ dir, config: clusterConfig(name, { scheduler: { retry_interval_s: 1 } }) }) });
      await eventually(
        async () => (await clusterOf(instances[0]!.server)).instances.length === 3,
        'the three instances to know each other',
      );
      const leaderOf = async (among: Instance[]) => {
        for (const instance of among) if ((await clusterOf(instance.server)).roles.includes('scheduler')) return instance;
        return undefined;
      };
      const leader = (await eventually(() => leaderOf(instances), 'one instance to run the scheduler'))!;
      const others = instances.filter((i) => i !== leader) as [Instance, Instance];

      // An agent on each of the two others; the one on others[0] is sent a command through the leader.
      const connect = async (at: Instance, ip: string) => {
        const agent = await FakeAgent.connect({ port: at.server.agentPort, localAddress: ip });
        agents.push(agent);
        agent.on('run/schedule', { status: 200 }, true);
        await agent.waitFor('refresh');
        return agent;
      };
      const x = await connect(others[0], ips[0]!);
      const y = await connect(others[1], ips[1]!);
      for (const instance of instances)
        for (const ip of [ips[0]!, ips[1]!])
          await eventually(async () => (await listed(instance.server, ip))?.state === 'OPG', `${instance.name} to list ${ip}`);

      // A queued shell command for y, delivered by the leader, never answered: then the leader dies.
      y.on('shell/run', { none: true });
      const queued = await others[0].server.post('/schedule/command', { clients: [ips[1]], command: 'run', params: { run: 'sleep 3600' } });
      assert.is(queued.status, 200, queued.text);
      await y.waitFor('shell/run', 0, 10_000);
      const actionOf = async (session: number) =>
        (
          await side.query<{ state: string; result: string; note: string }>(
            'select state, result, note from actions where session_id = ?',
            [session],
          )
        )[0];
      await eventually(async () => (await actionOf(queued.body.session))?.state === 'sent', 'the action marked sent');
      process.kill(leader.server.pid, 'SIGKILL');
      await leader.server.exited;

      // Another instance runs the scheduler within seconds; the command sent by the dead one fails, once.
      const next = await eventually(() => leaderOf(others), 'another instance to run the scheduler', 10_000);
      assert.ok(next && others.includes(next));
      await eventually(async () => (await actionOf(queued.body.session))?.state === 'done', 'the sent action to end');
      assert.is((await actionOf(queued.body.session))?.result, 'failure');
      const alive = others.map((i) => i.name).sort();
      for (const instance of others)
        await eventually(
          async () => JSON.stringify((await clusterOf(instance.server)).instances.sort()) === JSON.stringify(alive),
          `${instance.name} to see the dead instance gone`,
        );

      // Now the instance holding x dies in the middle of a command sent through the other.
      x.on('hardware', { none: true });
      const survivor = others[1];
      const r = await survivor.server.post('/hardware', { clients: [ips[0]] });
      assert.equal(r.body.clients, [{ addr: ips[0], outcome: 'sent' }]);
      await x.waitFor('hardware');
      process.kill(others[0].server.pid, 'SIGKILL');
      await others[0].server.exited;
      await eventually(async () => (await listed(survivor.server, ips[0]!)) === undefined, 'x to leave the list');
      assert.equal((await clusterOf(survivor.server)).roles, ['scheduler'], 'the last instance runs the scheduler');
      // x reconnects to the last instance; commands reach it there.
      x.destroy();
      const x2 = await connect(survivor, ips[0]!);
      x2.on('shell/run', { body: { out: 'ok\n', retcode: 0 } });
      const again = await survivor.server.post('/schedule/command', { clients: [ips[0]], command: 'run', params: { run: 'echo ok' } });
      await eventually(async () => (await actionOf(again.body.session))?.state === 'done', 'the new command to run');
      assert.is((await actionOf(again.body.session))?.result, 'success');
      // y got its command once: it was not sent again by the new scheduler.
      assert.is(y.requests.filter((q) => q.path === 'shell/run').length, 1);
      assert.is(x2.requests.filter((q) => q.path === 'shell/run').length, 1);
    } finally {
      for (const agent of agents) agent.destroy();
      for (const { server } of instances) await server.stop();
      await side.close();
      await removeTestStore(dir);
    }
  });
}

test.run();
