import { AgentLink } from '../plugins/agents';
import { clusterConfig } from '../test/support/cluster-site';
import { TOKEN, type TestServer, makeTestDir, removeTestStore, startServer } from '../test/support/server';
import { type Swarm, forkSwarm } from '../test/support/swarm';
import { testDatabaseSection } from '../test/support/test-db';
import { addBenchClients, until } from './support/fleet';
import { load } from './support/load';
import { fmt, loadFigures, type BenchRow } from './support/report';

/**
 * One instance against two sharing one PostgreSQL database (cluster.enabled), with the
 * same fleet of agents: spread half and half over the two, or all on the one. Measured: the
 * time until every agent is listed by every instance, GET /clients (the listing merges the
 * other instance's agents), and a refresh of 1,000 clients sent through the instance that
 * does not hold them, to the last answer stored. Both instances run in this process, as the
 * single one does: the figures compare the work, not two machines. CLUSTER_BENCH_AGENTS
 * (default 10000).
 */
export default async (): Promise<BenchRow[]> => {
  const size = Number(process.env.CLUSTER_BENCH_AGENTS ?? 10_000);
  return [...(await run(size, 1)), ...(await run(size, 2))];
};

/** 127.3.x.y with y in 1..200: distinct loopback sources, none a network or broadcast address. */
const addressOf = (i: number) => `127.3.${Math.floor(i / 200)}.${(i % 200) + 1}`;

async function run(size: number, instances: 1 | 2): Promise<BenchRow[]> {
  const dir = makeTestDir();
  const base = { log: { level: 'warn' }, rest: { max_response_bytes: 32 * 1024 * 1024 } };
  const servers: TestServer[] = [];
  const swarms: Swarm[] = [];
  const label = instances === 1 ? 'cluster: 1 instance' : 'cluster: 2 instances';
  try {
    servers.push(await startServer({ engine: 'postgresql', dir, config: instances === 1 ? base : { ...base, ...clusterConfig('a') } }));
    if (instances === 2)
      servers.push(
        await startServer({
          engine: 'postgresql',
          config: { ...base, ...clusterConfig('b'), log: base.log, database: testDatabaseSection(dir, 'postgresql') },
        }),
      );
    const links = servers.map((s) => s.app.container.resolve(AgentLink));
    const ips = Array.from({ length: size }, (_, i) => addressOf(i));
    await addBenchClients(servers[0]!, ips);

    // Agents in child processes: the first half to the first instance, the rest to the last.
    const t0 = Date.now();
    const half = Math.ceil(ips.length / 2);
    // At most 5,000 agents per child process (its descriptors), half on each instance.
    const groups: [AgentLink, string[]][] = [];
    for (const [from, to, link] of [[0, half, links[0]!] as const, [half, ips.length, links[links.length - 1]!] as const])
      for (let i = from; i < to; i += 5000) groups.push([link, ips.slice(i, Math.min(i + 5000, to))]);
    swarms.push(...(await Promise.all(groups.map(([link, group]) => forkSwarm(link.port(), group)))));
    const connected = swarms.reduce((sum, swarm) => sum + swarm.connected, 0);
    const settled = (link: AgentLink) =>
      link.listing().filter((c) => c.last_cmd.result === 'success' && c.state !== 'BSY').length >= connected;
    const ready = await until(() => links.every(settled), 180_000);
    const readySeconds = (Date.now() - t0) / 1000;

    const clients = await load({
      port: servers[0]!.port,
      method: 'GET',
      path: '/clients',
      headers: { Authorization: TOKEN },
      connections: 4,
      seconds: 5,
    });

    // 1,000 clients held by the last instance, asked through the first (the same one when alone).
    const targets = ips.slice(ips.length - Math.min(1000, ips.length - half));
    const t1 = Date.now();
    const dispatch = await links[0]!.dispatch(targets, { method: 'GET', path: 'refresh' });
    const sent = dispatch.outcomes.filter((o) => o.outcome === 'sent').length;
    const results = await Promise.allSettled(dispatch.answers.values());
    const refreshSeconds = (Date.now() - t1) / 1000;
    const stored = results.filter((r) => r.status === 'fulfilled' && r.value.result === 'success').length;

    return [
      {
        workload: `${label}: ${size} agents connect+refresh`,
        figures: { connected, listed_everywhere: ready ? 'yes' : 'NO', seconds: fmt(readySeconds, 2) },
      },
      { workload: `${label}: GET /clients with ${size} agents`, figures: loadFigures(clients) },
      {
        workload: `${label}: refresh ${targets.length} ${instances === 1 ? '' : 'forwarded '}to the last answer`,
        figures: { sent, stored, seconds: fmt(refreshSeconds, 2) },
      },
    ];
  } finally {
    for (const swarm of swarms) swarm.stop();
    for (const s of [...servers].reverse()) await s.close();
    await removeTestStore(dir, 'postgresql');
  }
}
