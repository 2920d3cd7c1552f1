import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { execute } from '../../../core/database';
import { agentConnectionCap, descriptorLimit } from '../../../plugins/agents/descriptors';
import { prepareSite, spawnServer } from '../../support/child-server';
import { FakeAgent, eventually, within } from '../../support/fake-agent';
import { addCenter, addRoom } from '../../support/fixtures';

test('the descriptor limit is read from /proc/self/limits, and the agent cap keeps the reserve', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-limits-'));
  try {
    const file = path.join(dir, 'limits');
    writeFileSync(
      file,
      'Limit                     Soft Limit           Hard Limit           Units     \nMax open files            1024                 524288               files     \n',
    );
    assert.equal(descriptorLimit(file), 1024, 'the soft limit is read');
    writeFileSync(file, 'Max open files            unlimited            unlimited            files     \n');
    assert.equal(descriptorLimit(file), undefined, '"unlimited" is no limit');
    assert.equal(descriptorLimit(path.join(dir, 'missing')), undefined, 'no /proc: no limit known');
    assert.equal(typeof descriptorLimit(), 'number', 'this process has a limit');
    assert.equal(agentConnectionCap(1024, 256), 768, 'the limit less the reserve');
    assert.equal(agentConnectionCap(100, 256), 1, 'a reserve above the limit still admits one agent');
    assert.equal(agentConnectionCap(undefined, 256), 65_000, 'no known limit: a fixed cap');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** 127.3.x.y: distinct loopback sources. */
const addressOf = (i: number) => `127.3.${Math.floor(i / 200)}.${(i % 200) + 1}`;

test('with ulimit -n 1024 and 1,100 agents, REST keeps answering, the log says so once per interval, and it recovers', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-fds-'));
  const count = 1100;
  const ips = Array.from({ length: count }, (_, i) => addressOf(i));
  const agents = new Map<string, FakeAgent>();
  await prepareSite(dir, async (s) => {
    const room = await addRoom(s, await addCenter(s), 'Lab', '255.0.0.0');
    await s.app.database.transactional(async (em) => {
      for (let i = 0; i < ips.length; i += 200) {
        const chunk = ips.slice(i, i + 200);
        await execute(
          em,
          `insert into clients (name, ip, mac, room_id) values ${chunk.map(() => '(?, ?, ?, ?)').join(', ')}`,
          chunk.flatMap((ip, j) => [`pc-${i + j}`, ip, (i + j + 1).toString(16).padStart(12, '0'), room]),
        );
      }
    });
  });
  const intervalS = 30;
  const server = await spawnServer({
    dir,
    descriptorLimit: 1024,
    config: { agents: { fd_reserve: 256, saturation_log_interval_s: intervalS } },
  });
  const started = Date.now();
  try {
    assert.match(
      readFileSync(`/proc/${server.pid}/limits`, 'latin1'),
      /^Max open files\s+1024\s/m,
      'the service runs with 1024 descriptors',
    );
    const cap = 1024 - 256;
    const connect = (localAddress: string) =>
      FakeAgent.connect({ port: server.agentPort, localAddress, mode: 'linux' }).then(
        (agent) => agents.set(localAddress, agent),
        () => undefined,
      );
    let restAnswers = 0;
    for (let i = 0; i < ips.length; i += 100) {
      await Promise.all(ips.slice(i, i + 100).map(connect));
      const r = await within(server.get('/scopes'), 10_000, `GET /scopes after ${i + 100} agents`);
      assert.equal(r.status, 200, `GET /scopes answers while ${i + 100} agents connect: ${r.text}`);
      restAnswers++;
    }
    assert.equal(restAnswers, 11, 'REST answered throughout');

    // Every agent is either held or was refused (connected, then closed by the service).
    const held = () => [...agents.values()].filter((a) => a.isConnected);
    await eventually(
      async () => {
        const r = await server.get('/clients');
        return r.status === 200 && r.body.clients.length === cap && held().length === cap;
      },
      `the service holds exactly ${cap} agents and closed the rest`,
      30_000,
    );
    const refused = ips.filter((ip) => !agents.get(ip)?.isConnected);
    assert.ok(refused.length >= count - cap, `${refused.length} agents refused`);
    const r = await server.get('/clients');
    assert.equal(r.status, 200, 'GET /clients answers at the cap');

    const full = () => server.logs.filter((l) => /agent listener full/.test(l.msg));
    await eventually(() => full().length >= 1, 'the condition is logged');
    const elapsedS = (Date.now() - started) / 1000;
    assert.ok(
      full().length <= 1 + Math.floor(elapsedS / intervalS),
      `logged once per interval, not per refusal (${full().length} lines in ${elapsedS.toFixed(0)} s for ${refused.length} refusals)`,
    );
    assert.ok(!server.logs.some((l) => /could not accept/.test(l.msg)), 'never out of descriptors: the cap kept the reserve');

    // Recovery without intervention: agents leave, the refused ones retry and are held.
    const leaving = held().slice(0, 400);
    for (const agent of leaving) agent.destroy();
    await eventually(
      async () => (await server.get('/clients')).body?.clients?.length === cap - leaving.length,
      'the leaving agents are released',
      20_000,
    );
    await Promise.all(refused.map(connect));
    await eventually(
      async () => (await server.get('/clients')).body?.clients?.length === cap - leaving.length + refused.length,
      'every refused agent is held on retry',
      20_000,
    );
    assert.ok(
      refused.every((ip) => agents.get(ip)?.isConnected),
      'the retried agents stay connected',
    );
    assert.equal((await server.get('/scopes')).status, 200, 'REST still answers');
  } finally {
    for (const agent of agents.values()) agent.destroy();
    const code = await server.stop();
    rmSync(dir, { recursive: true, force: true });
    assert.equal(code, 0, 'the service stops cleanly');
  }
});

test.run();
