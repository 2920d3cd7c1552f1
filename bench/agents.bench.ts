import { fork } from 'node:child_process';
import v8 from 'node:v8';
import vm from 'node:vm';
import { AgentLink } from '../plugins/agents';
import { TOKEN, startServer } from '../test/support/server';
import { load, rssMiB } from './support/load';
import { addBenchClients, until } from './support/fleet';
import { fmt, type BenchRow } from './support/report';
import { agentSwarmScript } from '../test/support/swarm';

/**
 * Many agents on one server: connect and refresh time, server RSS, GET /clients latency
 * under that load, and a POST /refresh fan-out. The agents run in a child process (see
 * agent-swarm.ts). Fleet sizes: AGENTS_BENCH_SIZES (default "5000,10000").
 */
export default async (): Promise<BenchRow[]> => {
  const sizes = (process.env.AGENTS_BENCH_SIZES ?? '5000,10000').split(',').map(Number);
  const rows: BenchRow[] = [];
  for (const size of sizes) rows.push(...(await fleet(size)));
  return rows;
};

/** A full collection before a memory reading, so the figure is live memory, not garbage not yet collected. */
v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;
const heapMiB = () => {
  collect();
  return Math.round(process.memoryUsage().heapUsed / 104857.6) / 10;
};

/** 127.1.x.y with y in 1..200: distinct loopback sources, none a network or broadcast address. */
const addressOf = (i: number) => `127.1.${Math.floor(i / 200)}.${(i % 200) + 1}`;

async function fleet(size: number): Promise<BenchRow[]> {
  // GET /clients of thousands of clients is past the spec's 256 KiB default response cap
  // (about 80 bytes an entry); large sites raise rest.max_response_bytes, as here.
  const s = await startServer({ config: { log: { level: 'warn' }, rest: { max_response_bytes: 8 * 1024 * 1024 } } });
  const swarm: ReturnType<typeof fork>[] = [];
  try {
    const link = s.app.container.resolve(AgentLink);
    const ips = Array.from({ length: size }, (_, i) => addressOf(i));
    await addBenchClients(s, ips);
    const heapBefore = heapMiB();
    const rssBefore = rssMiB();

    const t0 = Date.now();
    const perChild = 5000;
    const reports: Promise<{ connected: number; failed: number }>[] = [];
    for (let i = 0; i < ips.length; i += perChild) {
      const child = fork(agentSwarmScript, [String(link.port()), ...ips.slice(i, i + perChild)], {
        stdio: 'inherit',
      });
      swarm.push(child);
      reports.push(new Promise((resolve) => child.once('message', (m) => resolve(m as { connected: number; failed: number }))));
    }
    const connected = (await Promise.all(reports)).reduce((sum, r) => sum + r.connected, 0);
    const ready = await until(
      () => link.listing().filter((c) => c.last_cmd.result === 'success' && c.state !== 'BSY').length >= connected,
      120_000,
    );
    const readySeconds = (Date.now() - t0) / 1000;
    const heapConnected = heapMiB();
    const rssConnected = rssMiB();

    const clients = await load({
      port: s.port,
      method: 'GET',
      path: '/clients',
      headers: { Authorization: TOKEN },
      connections: 4,
      seconds: 5,
    });

    const targets = ips.slice(0, Math.min(1000, ips.length));
    const t1 = Date.now();
    const r = await s.post('/refresh', { clients: targets });
    const sent = (r.body?.clients ?? []).filter((c: { outcome: string }) => c.outcome === 'sent').length;
    const wanted = new Set(targets);
    const stored = await until(() => link.listing().filter((c) => wanted.has(c.addr) && c.state !== 'BSY').length >= sent, 60_000);
    const refreshSeconds = (Date.now() - t1) / 1000;

    return [
      {
        workload: `agents: ${size} connect+refresh`,
        figures: {
          connected,
          all_refreshed: ready ? 'yes' : 'NO',
          seconds: fmt(readySeconds, 2),
          server_rss_mib: rssConnected,
          rss_before_mib: rssBefore,
          live_heap_mib: heapConnected,
          heap_before_mib: heapBefore,
        },
      },
      {
        workload: `agents: GET /clients with ${size} connected`,
        figures: { rps: fmt(clients.rps), p50ms: fmt(clients.p50ms, 2), p99ms: fmt(clients.p99ms, 2), errors: clients.errors },
      },
      {
        workload: `agents: POST /refresh to ${targets.length} of ${size}`,
        figures: { sent, all_stored: stored ? 'yes' : 'NO', seconds: fmt(refreshSeconds, 2) },
      },
    ];
  } finally {
    for (const child of swarm) child.send('stop');
    await s.close();
  }
}
