// PostgreSQL only: several instances on one database (the other passes skip this file).
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { AgentLink, AgentLinkError } from '../../../plugins/agents';
import { Inventory } from '../../../plugins/inventory';
import { bulkInsert } from '../../support/bulk';
import { type ChildServer, spawnServer } from '../../support/child-server';
import { clusterConfig } from '../../support/cluster-site';
import { FakeAgent, eventually, within } from '../../support/fake-agent';
import { addCenter, addRoom, macFor } from '../../support/fixtures';
import { type TestServer, makeTestDir, removeTestStore, startServer } from '../../support/server';
import { testEngine } from '../../support/test-db';

/** How many agents the killed instance holds (OGSERVE_TEST_HELD_AGENTS for a larger run). */
const held = Number(process.env.OGSERVE_TEST_HELD_AGENTS ?? 200);
const addressOf = (i: number) => `127.0.${2 + Math.floor(i / 200)}.${(i % 200) + 1}`;

// Two instances on one PostgreSQL database: the one holding the agents is a process of its own, killed outright.
if (testEngine === 'postgresql') {
  test(`kill -9 of the instance holding ${held} agents: each command sent to them through another instance fails there (answer, event, log line)`, async () => {
    const dir = makeTestDir();
    const ips = Array.from({ length: held }, (_, i) => addressOf(i));
    const agents: FakeAgent[] = [];
    let asker: TestServer | undefined;
    let holder: ChildServer | undefined;
    try {
      // The instance that asks runs here, so that the answers it waits for can be read.
      asker = await startServer({ engine: 'postgresql', dir, config: clusterConfig('asker') });
      const room = await addRoom(asker, await addCenter(asker), 'Room', '255.0.0.0');
      await bulkInsert(
        asker.app.database,
        'clients',
        ['name', 'ip', 'mac', 'room_id'],
        ips.map((ip, i) => [`pc-${i}`, ip, macFor(i + 1), room]),
      );
      asker.app.container.resolve(Inventory).tablesChanged();
      holder = await spawnServer({ dir, config: clusterConfig('holder') });
      for (const ip of ips) {
        const agent = await FakeAgent.connect({ port: holder.agentPort, localAddress: ip });
        agent.on('hardware', { none: true });
        agents.push(agent);
      }
      const link = asker.app.container.resolve(AgentLink);
      await eventually(
        () => link.listing().filter((c) => c.state === 'OPG' && c.last_cmd.result === 'success').length === held,
        'the asker to list every agent refreshed',
        60_000,
      );
      const failed: { client: string; command: string; reason: string }[] = [];
      asker.app.events.on('test', 'command.failed', (event) => void failed.push(event));

      const dispatch = await link.dispatch(ips, { method: 'GET', path: 'hardware' });
      assert.ok(
        dispatch.outcomes.every((o) => o.outcome === 'sent'),
        'sent to every agent',
      );
      const ends = [...dispatch.answers.values()].map((answer) =>
        answer.then(
          () => undefined,
          (error: unknown) => error,
        ),
      );
      await within(Promise.all(agents.map((a) => a.waitFor('hardware', 0, 30_000))), 60_000, 'every agent to get the command');
      process.kill(holder.pid, 'SIGKILL');
      await holder.exited;

      // The answer: each fails as disconnected.
      for (const [i, error] of (await within(Promise.all(ends), 10_000, 'every answer to end')).entries()) {
        assert.ok(error instanceof AgentLinkError, `${ips[i]}: the answer failed`);
        assert.equal(error.reason, 'disconnected', `${ips[i]}: as disconnected`);
      }
      // The event: one command.failed each, from the instance that asked.
      await eventually(() => failed.length >= held, 'a command.failed event for each command');
      assert.deepEqual(failed.map((e) => e.client).sort(), [...ips].sort(), 'one event per client');
      for (const event of failed)
        assert.equal(`${event.command} ${event.reason}`, 'hardware disconnected', `${event.client}: the event says what failed`);
      // The log line: one each, at warn, naming the instance that is gone.
      const lines = asker.logs.filter((l) => /^command hardware to .+ failed: /.test(l.msg));
      assert.deepEqual(lines.map((l) => l.ip).sort(), [...ips].sort(), 'one log line per client');
      for (const line of lines) {
        assert.equal(line.level, 'warn', `${line.ip}: at warn`);
        assert.match(String(line.reason), /instance holder, which held the agent, is gone/, `${line.ip}: the reason`);
      }
    } finally {
      for (const agent of agents) agent.destroy();
      await holder?.stop();
      await asker?.close();
      await removeTestStore(dir, 'postgresql');
    }
  });
}

test.run();
