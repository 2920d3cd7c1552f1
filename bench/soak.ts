import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { execute } from '../core/database';
import { agentConnectionCap, descriptorLimit } from '../plugins/agents/descriptors';
import { freePort, prepareSite, spawnServer, type ChildServer } from '../test/support/child-server';
import { within } from '../test/support/fake-agent';
import { TOKEN } from '../test/support/server';
import { addCenter, addRoom } from '../test/support/fixtures';
import { load, percentile } from './support/load';
import { fmt } from './support/report';

/**
 * `npm run soak`: the real service as a child process holding N fake agents (in other child
 * processes, from distinct 127.x addresses) that answer probes, refreshes and shell runs,
 * while REST load runs for a while. Then every agent leaves and the service's memory must
 * come back down. Exits 1 on any lost agent or answer, any non-200 REST answer, or memory
 * not returned. Settings (environment):
 *   SOAK_AGENTS   agents (default 10000)
 *   SOAK_SECONDS  length of the REST load (default 600)
 */

const agentsWanted = Number(process.env.SOAK_AGENTS ?? 10_000);
const seconds = Number(process.env.SOAK_SECONDS ?? 600);
/** Clients that never connect: /wol targets (a connected client is never woken). */
const sleepers = 50;
/** Probe every agent this often during the soak, as a console-less site would. */
const probeIntervalS = 30;
/** Each swarm process stays well within its own descriptor limit. */
const perSwarm = Math.max(100, Math.min(2500, (descriptorLimit() ?? 4096) - 200));
/**
 * After every agent left and a full collection, two limits. The live heap must be back to
 * where it was before the agents came (plus this slack, for caches such as the last shell
 * result of each client, which outlive a connection by design): anything more is a leak.
 * And the RSS must have given back at least half of what the agents added: the rest is V8's
 * committed-but-free pages and glibc's arenas, which the next connections reuse.
 */
const heapSlackMiB = 16;
const returnedFraction = 0.5;

const agentAddress = (i: number) => `127.10.${Math.floor(i / 200)}.${(i % 200) + 1}`;
const sleeperAddress = (i: number) => `127.11.0.${i + 1}`;
const mib = (kib: number) => Math.round(kib / 102.4) / 10;
const random = <T>(list: T[]): T => list[Math.floor(Math.random() * list.length)]!;
const sample = <T>(list: T[], n: number): T[] => Array.from({ length: n }, () => random(list));

interface Paced {
  requests: number;
  errors: number;
  statuses: Record<number, number>;
  latencies: number[];
}

async function main(): Promise<void> {
  const failures: string[] = [];
  const serviceCap = agentConnectionCap(descriptorLimit(), 256);
  if (serviceCap < agentsWanted)
    throw new Error(`ulimit -n is too low for ${agentsWanted} agents (the service would hold ${serviceCap}); raise it`);
  console.log(
    `# ogserve soak: ${agentsWanted} agents, ${seconds} s of REST load; node ${process.version}, ${os.cpus().length} cores, ${new Date().toISOString()}`,
  );

  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-soak-'));
  const ips = Array.from({ length: agentsWanted }, (_, i) => agentAddress(i));
  const sleeperIps = Array.from({ length: sleepers }, (_, i) => sleeperAddress(i));
  await prepareSite(dir, async (s) => {
    const room = await addRoom(s, await addCenter(s, 'Soak'), 'Soak lab', '255.0.0.0');
    const all = [...ips, ...sleeperIps];
    await s.app.database.transactional(async (em) => {
      for (let i = 0; i < all.length; i += 200) {
        const chunk = all.slice(i, i + 200);
        await execute(
          em,
          `insert into clients (name, ip, mac, room_id) values ${chunk.map(() => '(?, ?, ?, ?)').join(', ')}`,
          chunk.flatMap((ip, j) => [`soak-${i + j}`, ip, (i + j + 1).toString(16).padStart(12, '0'), room]),
        );
      }
    });
  });
  const probeFile = path.join(dir, 'probe.jsonl');
  const server = await spawnServer({
    dir,
    nodeArgs: ['--require', path.join(__dirname, 'support', 'service-probe.js')],
    env: { SOAK_PROBE_FILE: probeFile },
    config: {
      log: { level: 'warn' },
      // GET /clients of 10,000 clients is about 0.8 MB, past the spec's 256 KiB default.
      rest: { max_response_bytes: 16 * 1024 * 1024 },
      agents: { probe_interval_s: probeIntervalS },
      // Magic packets to loopback addresses only (the sleepers' room is 127/8), on a free port.
      wol: { port: await freePort(), interface: '', limited_broadcast: false },
    },
  });
  const swarms: ChildProcess[] = [];
  let peakKiB = 0;
  const rssSampler = setInterval(() => (peakKiB = Math.max(peakKiB, server.rssKiB())), 1000);
  try {
    const startHeap = await liveHeap(server, probeFile);
    const startKiB = server.rssKiB();
    const t0 = Date.now();
    const reports: Promise<{ connected: number; failed: number }>[] = [];
    for (let i = 0; i < ips.length; i += perSwarm) {
      const child = fork(path.join(__dirname, 'support', 'soak-swarm.js'), [String(server.agentPort), ...ips.slice(i, i + perSwarm)], {
        stdio: 'inherit',
      });
      swarms.push(child);
      reports.push(new Promise((resolve) => child.once('message', (m) => resolve(m as { connected: number; failed: number }))));
    }
    const connected = (await within(Promise.all(reports), 600_000, 'the swarms to connect')).reduce((sum, r) => sum + r.connected, 0);
    if (connected !== agentsWanted) failures.push(`${agentsWanted - connected} agents could not connect`);
    const settled = await settle(server, ips, 600_000);
    const connectS = (Date.now() - t0) / 1000;
    if (!settled.ok) failures.push(`after connecting: ${settled.why}`);
    const connectedKiB = server.rssKiB();
    console.log(
      `connect: ${connected} agents connected and refreshed in ${fmt(connectS, 1)} s; RSS ${mib(startKiB)} -> ${mib(connectedKiB)} MiB (${fmt((connectedKiB - startKiB) / connected, 1)} KiB per agent)`,
    );

    const loadStart = Date.now();
    const auth = { Authorization: TOKEN };
    const [clients, scopes, info, refresh, shell, wol] = await Promise.all([
      // Consoles poll GET /clients every few seconds; ten consoles polling each second is
      // already a busy site. Unpaced, its 0.8 MB answers would take the whole loop.
      pacedGet(server, seconds, 100, '/clients'),
      load({ port: server.restPort, method: 'GET', path: '/scopes', headers: auth, connections: 1, seconds }),
      load({
        port: server.restPort,
        method: 'GET',
        path: '/client/info',
        body: () => ({ client: [random(ips)] }),
        headers: auth,
        connections: 2,
        seconds,
      }),
      paced(server, seconds, 1000, () => ['/refresh', { clients: sample(ips, 100) }]),
      paced(server, seconds, 1000, () => ['/shell/run', { clients: sample(ips, 100), run: 'uptime' }]),
      paced(server, seconds, 2000, () => ['/wol', { clients: sample(sleeperIps, 5), type: Math.random() < 0.5 ? 'unicast' : 'broadcast' }]),
    ]);
    const loadEnd = Date.now();
    const endKiB = server.rssKiB();

    const after = await settle(server, ips, 120_000);
    if (!after.ok) failures.push(`after the load: ${after.why}`);
    const swarmStats = await Promise.all(swarms.map((child) => ask(child, 'stats')));
    const lostAgents = swarmStats.reduce((sum, s) => sum + s.disconnected, 0);
    if (lostAgents > 0) failures.push(`${lostAgents} agents were disconnected`);
    const seen: Record<string, number> = {};
    for (const s of swarmStats) for (const [k, v] of Object.entries(s.requests)) seen[k] = (seen[k] ?? 0) + v;

    // Every agent leaves; the memory they held must be returned.
    await Promise.all(swarms.map((child) => ask(child, 'leave')));
    const left = await until(async () => {
      const r = await server.get('/clients');
      return r.status === 200 && !r.body.clients.some((c: { addr: string }) => c.addr.startsWith('127.10.'));
    }, 120_000);
    if (!left) failures.push('agents still listed two minutes after they left');
    const limitKiB = peakKiB - returnedFraction * (peakKiB - startKiB);
    await new Promise((r) => setTimeout(r, 10_000));
    const idleKiB = server.rssKiB();
    const leftHeap = await liveHeap(server, probeFile);
    const leftKiB = server.rssKiB();
    if (leftKiB > limitKiB)
      failures.push(
        `RSS after the agents left is ${mib(leftKiB)} MiB, above ${mib(limitKiB)} MiB (less than ${returnedFraction * 100}% of the growth from ${mib(startKiB)} to the peak was returned)`,
      );
    if (leftHeap > startHeap + heapSlackMiB * 1024)
      failures.push(
        `live heap after the agents left is ${mib(leftHeap)} MiB, more than ${heapSlackMiB} MiB above the ${mib(startHeap)} MiB before they came: a leak`,
      );

    const loops = readLoop(probeFile, loadStart, loadEnd);
    for (const [name, r] of Object.entries({ 'GET /scopes': scopes, 'GET /client/info': info })) {
      console.log(`${name.padEnd(18)} rps=${fmt(r.rps)}  p99ms=${fmt(r.p99ms, 2)}  requests=${r.requests}  errors=${r.errors}`);
      if (r.errors > 0) failures.push(`${name}: ${r.errors} requests failed or did not answer 200`);
    }
    for (const [name, r] of Object.entries({
      'GET /clients': clients,
      'POST /refresh': refresh,
      'POST /shell/run': shell,
      'POST /wol': wol,
    })) {
      const sorted = [...r.latencies].sort((a, b) => a - b);
      console.log(
        `${name.padEnd(18)} rps=${fmt(r.requests / seconds, 2)} (paced)  p99ms=${fmt(percentile(sorted, 0.99), 2)}  requests=${r.requests}  errors=${r.errors}  statuses=${JSON.stringify(r.statuses)}`,
      );
      if (r.errors > 0) failures.push(`${name}: ${r.errors} requests failed or did not answer 200`);
    }
    console.log(
      `agents: held ${after.listed}/${agentsWanted} through the load, ${lostAgents} lost; requests they answered: ${JSON.stringify(seen)}`,
    );
    console.log(
      `event-loop delay of the service during the load: p99 worst ${fmt(loops.worst, 1)} ms, median of ${loops.count} 2-s windows ${fmt(loops.median, 1)} ms, max ${fmt(loops.max, 1)} ms`,
    );
    console.log(
      `RSS MiB: start ${mib(startKiB)}, connected ${mib(connectedKiB)}, peak ${mib(peakKiB)}, end ${mib(endKiB)}, after the agents left ${mib(idleKiB)} idle, ${mib(leftKiB)} after a full GC (limit ${mib(limitKiB)})`,
    );
    console.log(
      `live heap MiB after a full GC: before the agents ${mib(startHeap)}, after they left ${mib(leftHeap)} (limit ${mib(startHeap + heapSlackMiB * 1024)})`,
    );
    console.log(`memory per connected agent: ${fmt((connectedKiB - startKiB) / Math.max(1, connected), 1)} KiB RSS`);
  } catch (error) {
    failures.push(`soak aborted: ${(error as Error).message}`);
  } finally {
    clearInterval(rssSampler);
    for (const child of swarms) if (child.connected) child.kill();
    const code = await server.stop();
    if (code !== 0) failures.push(`the service exited with ${code}`);
    const errors = server.logs.filter((l) => l.level === 'error' || l.level === 'fatal');
    if (errors.length > 0) failures.push(`${errors.length} error lines in the service log, first: ${errors[0]!.msg}`);
    if (process.env.SOAK_KEEP) console.log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
  if (failures.length > 0) {
    console.log(`SOAK FAILED:\n  ${failures.join('\n  ')}`);
    process.exit(1);
  }
  console.log('soak passed');
  process.exit(0);
}

/** Every agent listed, not busy, its last command a success: no answer was lost. */
async function settle(server: ChildServer, ips: string[], ms: number): Promise<{ ok: boolean; listed: number; why: string }> {
  const wanted = new Set(ips);
  let listed = 0;
  let why = '';
  const ok = await until(async () => {
    const r = await server.get('/clients');
    if (r.status !== 200) {
      why = `GET /clients answered ${r.status}`;
      return false;
    }
    const entries = (r.body.clients as { addr: string; state: string; last_cmd: { result: string } }[]).filter((c) => wanted.has(c.addr));
    listed = entries.length;
    const busy = entries.filter((c) => c.state === 'BSY').length;
    const failed = entries.filter((c) => c.last_cmd.result !== 'success').length;
    why = `${listed}/${ips.length} agents listed, ${busy} still busy, ${failed} whose last command did not succeed`;
    return listed === ips.length && busy === 0 && failed === 0;
  }, ms);
  return { ok, listed, why };
}

/** One request every `everyMs` (or as soon as the previous one answered, if slower). */
async function paced(
  server: ChildServer,
  seconds: number,
  everyMs: number,
  next: () => [string, unknown],
  method = 'POST',
): Promise<Paced> {
  const result: Paced = { requests: 0, errors: 0, statuses: {}, latencies: [] };
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    const [urlPath, body] = next();
    const t0 = process.hrtime.bigint();
    const status = await server.request(method, urlPath, body).then(
      (r) => r.status,
      () => 0,
    );
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    result.requests++;
    result.latencies.push(ms);
    result.statuses[status] = (result.statuses[status] ?? 0) + 1;
    if (status !== 200) result.errors++;
    await new Promise((r) => setTimeout(r, Math.max(0, everyMs - ms)));
  }
  return result;
}

/** GET `urlPath` every `everyMs`. */
function pacedGet(server: ChildServer, seconds: number, everyMs: number, urlPath: string): Promise<Paced> {
  return paced(server, seconds, everyMs, () => [urlPath, undefined], 'GET');
}

/** The service's live heap in KiB: a full collection (service-probe.ts), then its next probe line. */
async function liveHeap(server: ChildServer, file: string): Promise<number> {
  const asked = Date.now();
  process.kill(server.pid, 'SIGUSR2');
  let heapKiB = NaN;
  const ok = await until(async () => {
    const last = readFileSync(file, 'utf8').trim().split('\n').at(-1);
    const line = last ? (JSON.parse(last) as { t: number; heapUsed: number }) : undefined;
    if (!line || line.t < asked + 500) return false;
    heapKiB = line.heapUsed / 1024;
    return true;
  }, 15_000);
  if (!ok) throw new Error('the service probe wrote no heap figure after a collection');
  return heapKiB;
}

function ask(child: ChildProcess, message: string): Promise<{ requests: Record<string, number>; disconnected: number }> {
  return within(
    new Promise((resolve) => {
      child.once('message', (m) => resolve(m as { requests: Record<string, number>; disconnected: number }));
      child.send(message);
    }),
    60_000,
    `a swarm to answer '${message}'`,
  );
}

function readLoop(file: string, from: number, to: number): { worst: number; median: number; max: number; count: number } {
  let lines: { t: number; p99ms: number; maxms: number }[] = [];
  try {
    lines = readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  } catch {
    return { worst: NaN, median: NaN, max: NaN, count: 0 };
  }
  const window = lines.filter((l) => l.t >= from && l.t <= to + 2000);
  const p99s = window.map((l) => l.p99ms).sort((a, b) => a - b);
  return { worst: p99s.at(-1) ?? NaN, median: percentile(p99s, 0.5), max: Math.max(...window.map((l) => l.maxms)), count: window.length };
}

async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check().catch(() => false)) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 500));
  }
}

void main();
