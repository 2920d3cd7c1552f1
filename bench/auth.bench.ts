import { spawn } from 'node:child_process';
import path from 'node:path';
import { AgentLink } from '../plugins/agents';
import { TOKEN, type TestServer, startServer } from '../test/support/server';
import { type Swarm, forkSwarm } from '../test/support/swarm';
import { addBenchClients, until } from './support/fleet';
import { type LoadResult, withLoopDelay } from './support/load';
import { loadFromChild } from './support/load-process';
import { type BenchRow, fmt, loadFigures } from './support/report';
import type { SprayOptions, SprayResult } from './support/sign-in-spray';

/** How long each spray lasts; the reads measured under it start 0.5 s in and stop 0.5 s before its end. */
const SECONDS = Number(process.env.BENCH_AUTH_SECONDS ?? 30);
const READ_SECONDS = Math.max(1, SECONDS - 1);
const READERS = 4;
const ATTACKERS = 50;
/** Clients with a connected agent: what GET /clients lists (a client without one is not listed). */
const AGENTS = 500;
/** Existing local users the sprays aim at (the others named do not exist: a decoy check, the same cost). */
const USERS = 10;
const PASSWORD = 'the-right-password';

/** 127.1.0.1 ...: the clients and their agents' source addresses. */
const ipOf = (i: number) => `127.1.${i >> 8}.${i & 255}`;

interface Variant {
  label: string;
  auth: Record<string, unknown>;
  /** Source address of each spraying connection, and the names tried in turn. */
  addresses: string[];
  usernames: string[];
}

const variants: Variant[] = [
  {
    label: '1 name, 127.0.0.1, default throttle',
    auth: {},
    addresses: ['127.0.0.1'],
    usernames: ['user-0'],
  },
  {
    // free_failures at its maximum, and each connection from an address of its own, so that
    // neither a name nor an address is slowed: scrypt's queue alone bounds what the spray costs.
    label: `1,000 names, ${ATTACKERS} addrs, throttle off`,
    auth: { free_failures: 100, max_delay_s: 1 },
    addresses: Array.from({ length: ATTACKERS }, (_, i) => `127.0.2.${i + 1}`),
    usernames: Array.from({ length: 1000 }, (_, i) => `user-${i}`),
  },
];

/**
 * Sign-ins under attack (issue: "50 connections signing in with wrong passwords for 30 s
 * must not slow GET /clients for others by more than 2x at p99"). For each variant, a fresh
 * server (SQLite, default plugins) with 500 clients whose agents are connected (from a child
 * process) and 10 local users: GET /clients with the API key from 4 connections alone (the
 * baseline, after an unreported warm-up), then the same reads while 50 connections post wrong
 * passwords to POST /auth/login. The reads and the spray each run in a process of their own;
 * the server runs in this one, so the CPU and event-loop figures are the server's (scrypt's
 * threads included). Figures only: nothing here is asserted.
 */
export default async function authBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const variant of variants) {
    const s = await startServer({ config: { log: { level: 'warn' }, auth: variant.auth } });
    let swarm: Swarm | undefined;
    try {
      swarm = await connectAgents(s);
      await prepare(s, swarm);
      // Unreported: V8 compiles what the reads run (after a 3 s warm-up the first reads still came out a third slower than later ones).
      await reads(s.port, Math.min(10, READ_SECONDS));
      const baseline = await measured(() => reads(s.port, READ_SECONDS));
      rows.push({ workload: `GET /clients (${AGENTS} agents) x${READERS}, alone`, figures: readFigures(baseline) });
      const attacked = await measured(() => underSpray(s.port, variant));
      const spray = attacked.result.spray;
      rows.push({
        workload: `GET /clients (${AGENTS} agents) x${READERS}, under spray`,
        figures: {
          ...readFigures({ ...attacked, result: attacked.result.reads }),
          p99_x_alone: fmt(attacked.result.reads.p99ms / baseline.result.p99ms, 2),
        },
      });
      const count = (status: number) => spray.statuses[status] ?? 0;
      const others = spray.attempts - count(401) - count(429) - count(503);
      rows.push({
        workload: `  login x${ATTACKERS}, ${variant.label}`,
        figures: {
          'tries/s': fmt(spray.attempts / spray.seconds, 0),
          got_401: count(401),
          got_429: count(429),
          got_503: count(503),
          got_other: others,
          'checked/s': fmt(count(401) / spray.seconds, 1),
          p50_ms: fmt(spray.p50ms, 1),
          p99_ms: fmt(spray.p99ms, 1),
          spray_cpu_pct: fmt((spray.cpuMs / 1000 / spray.seconds) * 100, 0),
        },
      });
      // The same reads once the spray is over: how far the machine itself drifted meanwhile.
      const after = await measured(() => reads(s.port, READ_SECONDS));
      rows.push({ workload: `GET /clients (${AGENTS} agents) x${READERS}, after`, figures: readFigures(after) });
    } finally {
      swarm?.stop();
      await s.close();
    }
  }
  return rows;
}

/** The fleet GET /clients lists: clients whose agents connect from a child process. */
async function connectAgents(s: TestServer): Promise<Swarm> {
  const ips = Array.from({ length: AGENTS }, (_, i) => ipOf(i + 1));
  await addBenchClients(s, ips);
  return forkSwarm(s.app.container.resolve(AgentLink).port(), ips);
}

/** Every agent connected and its first refresh stored, and the local users the sprays aim at. */
async function prepare(s: TestServer, swarm: Swarm): Promise<void> {
  const link = s.app.container.resolve(AgentLink);
  const refreshed = () => link.listing().filter((c) => c.last_cmd.result === 'success' && c.state !== 'BSY').length >= AGENTS;
  if (swarm.connected < AGENTS || !(await until(refreshed, 60_000)))
    throw new Error(`only some of ${AGENTS} agents connected and refreshed (${swarm.connected} connected)`);
  for (let i = 0; i < USERS; i++) {
    const r = await s.post('/users', { username: `user-${i}`, password: PASSWORD, role: 'operator' });
    if (r.status !== 200) throw new Error(`POST /users: ${r.status} ${r.text.slice(0, 300)}`);
  }
}

/** `fn`'s result, with the server's CPU (this process, all its threads: scrypt's too) and event-loop delay meanwhile. */
async function measured<T>(fn: () => Promise<T>): Promise<{ result: T; cpuPercent: number; loopP99ms: number }> {
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const { result, loopP99ms } = await withLoopDelay(fn);
  const cpu = process.cpuUsage(cpu0);
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  return { result, cpuPercent: ((cpu.user + cpu.system) / 1000 / wallMs) * 100, loopP99ms };
}

function readFigures(m: { result: LoadResult; cpuPercent: number; loopP99ms: number }): BenchRow['figures'] {
  return { ...loadFigures(m.result), server_cpu_pct: fmt(m.cpuPercent, 0), loop_p99_ms: fmt(m.loopP99ms, 1) };
}

/** The spray for SECONDS; the reads from 0.5 s after it began until 0.5 s before it ends. */
async function underSpray(port: number, variant: Variant): Promise<{ reads: LoadResult; spray: SprayResult }> {
  const spray = startSpray({
    port,
    connections: ATTACKERS,
    seconds: SECONDS,
    addresses: variant.addresses,
    usernames: variant.usernames,
  });
  try {
    await spray.started;
    await new Promise((resolve) => setTimeout(resolve, 500));
    const read = await reads(port, READ_SECONDS);
    return { reads: read, spray: await spray.result };
  } finally {
    spray.stop();
  }
}

/** GET /clients with the API key from READERS kept-alive connections, from the load generator's own process. */
function reads(port: number, seconds: number): Promise<LoadResult> {
  return loadFromChild({ port, method: 'GET', path: '/clients', headers: { Authorization: TOKEN }, connections: READERS, seconds });
}

/** The spray in its own process: `started` once its first requests are out, `result` when it ends. */
function startSpray(options: SprayOptions): { started: Promise<void>; result: Promise<SprayResult>; stop(): void } {
  const child = spawn(process.execPath, [path.join(__dirname, 'support', 'sign-in-spray.js')], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  let markStarted: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  child.stdout.on('data', (chunk) => {
    out += chunk;
    if (out.startsWith('started\n')) markStarted();
  });
  const result = new Promise<SprayResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      markStarted();
      if (code === 0) resolve(JSON.parse(out.slice('started\n'.length)) as SprayResult);
      else reject(new Error(`sign-in spray exited ${code}`));
    });
  });
  // Awaited by underSpray only after started; a failure before then must not go unhandled.
  result.catch(() => undefined);
  child.stdin.end(JSON.stringify(options));
  return {
    started,
    result,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill();
    },
  };
}
