import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { AgentLink } from '../plugins/agents';
import { type ChildServer, prepareSite, spawnServer } from '../test/support/child-server';
import { TOKEN, startServer } from '../test/support/server';
import { load, rssMiB } from './support/load';
import { addBenchClients, until } from './support/fleet';
import { residentMiBOf, settledMemory } from './support/proc';
import { fmt, type BenchRow } from './support/report';
import { agentSwarmScript } from '../test/support/swarm';

/**
 * Many agents on one server: connect and refresh time, server RSS, GET /clients latency
 * under that load, and a POST /refresh fan-out. The agents run in a child process (see
 * agent-swarm.ts). Fleet sizes: AGENTS_BENCH_SIZES (default "5000,10000"; "" for none).
 * Then a few agents answering large answers (answering-agents.ts) to the service as its own
 * process: AGENTS_BENCH_LARGE_SHAPES (default "text,lines,values"; "" for none),
 * AGENTS_BENCH_LARGE_AGENTS (10), AGENTS_BENCH_LARGE_BYTES (15,000,000),
 * AGENTS_BENCH_LARGE_ROUNDS (3); AGENTS_BENCH_CPU_PROF=<dir> writes the service's CPU profile there.
 */
export default async (): Promise<BenchRow[]> => {
  const list = (value: string) => value.split(',').filter((v) => v !== '');
  const sizes = list(process.env.AGENTS_BENCH_SIZES ?? '5000,10000').map(Number);
  const rows: BenchRow[] = [];
  for (const size of sizes) rows.push(...(await fleet(size)));
  for (const shape of list(process.env.AGENTS_BENCH_LARGE_SHAPES ?? 'text,lines,values')) rows.push(await largeAnswers(shape));
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

/**
 * Agents each answering a hardware request with one large answer (under agents.max_answer_bytes),
 * round after round, while 4 clients poll GET /clients: how long REST waits meanwhile, and
 * the service's resident memory before, and settled after (the least over 20 s).
 */
async function largeAnswers(shape: string): Promise<BenchRow> {
  const count = Number(process.env.AGENTS_BENCH_LARGE_AGENTS ?? 10);
  const bytes = Number(process.env.AGENTS_BENCH_LARGE_BYTES ?? 15_000_000);
  const rounds = Number(process.env.AGENTS_BENCH_LARGE_ROUNDS ?? 3);
  const profileDir = process.env.AGENTS_BENCH_CPU_PROF;
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-large-answers-'));
  const ips = Array.from({ length: count }, (_, i) => addressOf(i));
  let server: ChildServer | undefined;
  let agents: ReturnType<typeof fork> | undefined;
  try {
    await prepareSite(dir, (s) => addBenchClients(s, ips));
    server = await spawnServer({
      dir,
      config: { log: { level: 'warn' } },
      nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
    });
    const child = fork(path.join(__dirname, 'support', 'answering-agents.js'), [String(server.agentPort), String(bytes), shape, ...ips], {
      stdio: 'inherit',
    });
    agents = child;
    await new Promise((resolve) => child.once('message', resolve));
    const listed = async (ok: (c: { state: string; last_cmd: { result: string } }) => boolean) =>
      ((await server!.get('/clients')).body.clients as { state: string; last_cmd: { result: string } }[]).filter(ok).length;
    const idle = (c: { state: string; last_cmd: { result: string } }) => c.state !== 'BSY' && c.last_cmd.result !== 'unknown';
    while ((await listed(idle)) < count) await sleep(50);
    const before = await settledMemory(server.pid, 5);

    let done = false;
    const polling = load({
      port: server.port,
      method: 'GET',
      path: '/clients',
      headers: { Authorization: TOKEN },
      connections: 4,
      seconds: 600,
      done: () => done,
    });
    const started = Date.now();
    let peak = 0;
    for (let round = 0; round < rounds; round++) {
      await server.post('/hardware', { clients: ips });
      do {
        peak = Math.max(peak, residentMiBOf(server.pid).rss);
        await sleep(50);
      } while ((await listed(idle)) < count);
    }
    const seconds = (Date.now() - started) / 1000;
    done = true;
    const clients = await polling;
    const after = await settledMemory(server.pid, 20);
    return {
      workload: `agents: ${count} answers of ${fmt(bytes / 1e6, 0)} MB (${shape}) x ${rounds}`,
      figures: {
        seconds_per_round: fmt(seconds / rounds, 2),
        clients_p50ms: fmt(clients.p50ms, 1),
        clients_p99ms: fmt(clients.p99ms, 1),
        clients_maxms: fmt(clients.maxms, 1),
        requests: clients.requests,
        dropped: server.logs.filter((l) => /dropping agent connection/.test(l.msg)).length,
        rss_before_mib: before.rss,
        rss_peak_mib: peak,
        rss_after_mib: after.rss,
        anon_after_mib: after.anon,
      },
    };
  } finally {
    agents?.send('stop');
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
