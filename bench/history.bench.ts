import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import { AgentLink } from '../plugins/agents';
import { addCenter, addRoom } from '../test/support/fixtures';
import { TOKEN, type TestServer, send, startServer } from '../test/support/server';
import { insertClients, until } from './support/fleet';
import { percentile } from './support/load';
import { type BenchRow, fmt } from './support/report';

/**
 * The history plugin under a reboot storm: HISTORY_BENCH_PCS PCs (10,000) in 100 rooms of 10
 * centers, each agent answering a full inventory (16 hardware lines, HISTORY_BENCH_PACKAGES
 * packages, 200 by default). First every PC reports once (the history's starting point);
 * then every agent drops and reconnects (the storm), 2% of the PCs now with another
 * inventory (a memory bank gone, a browser updated), and every PC reports its full inventory
 * again: the time until all are stored, and the history rows written. Then the fleet
 * reports over them, 5 runs each. The agents run in child processes (inventory-swarm.ts).
 */
const size = Number(process.env.HISTORY_BENCH_PCS ?? 10_000);
const packages = Number(process.env.HISTORY_BENCH_PACKAGES ?? 200);
const changedEvery = 50;
const perChild = 5000;
const swarmScript = path.join(__dirname, 'support', 'inventory-swarm.js');

/** 127.2.x.y with y in 1..200. */
const addressOf = (i: number) => `127.2.${Math.floor(i / 200)}.${(i % 200) + 1}`;

async function count(s: TestServer, table: string): Promise<number> {
  const [row] = await s.app.database.query<{ n: number | string }>(`select count(*) as n from ${table}`);
  return Number(row!.n);
}

async function connectSwarm(port: number, ips: string[]): Promise<{ children: ChildProcess[]; connected: number }> {
  const children: ChildProcess[] = [];
  const reports: Promise<{ connected: number }>[] = [];
  for (let i = 0; i < ips.length; i += perChild) {
    const child = fork(swarmScript, [String(port), String(packages), ...ips.slice(i, i + perChild)], { stdio: 'inherit' });
    children.push(child);
    reports.push(new Promise((resolve) => child.once('message', (m) => resolve(m as { connected: number }))));
  }
  const connected = (await Promise.all(reports)).reduce((sum, r) => sum + r.connected, 0);
  return { children, connected };
}

/**
 * Send a command to every PC, 2,000 at a time (each batch stored before the next is sent, as
 * a storm spreads over minutes, not one instant); resolves with the seconds until all are stored.
 */
async function inventory(s: TestServer, link: AgentLink, ips: string[], path: string, body: Record<string, unknown>): Promise<number> {
  const t0 = Date.now();
  for (let i = 0; i < ips.length; i += 2000) {
    const batch = new Set(ips.slice(i, i + 2000));
    const r = await s.post(path, { clients: [...batch], ...body });
    if (r.status !== 200) throw new Error(`POST ${path}: ${r.status} ${r.text.slice(0, 200)}`);
    const done = await until(() => link.listing().every((c) => !batch.has(c.addr) || c.state !== 'BSY'), 600_000);
    if (!done) throw new Error(`POST ${path}: still busy after 10 minutes`);
  }
  const failed = link.listing().filter((c) => c.last_cmd.result !== 'success').length;
  if (failed > 0) {
    const reasons = new Set(
      s.logs.filter((l) => Number(l.level) >= 40 || l.level === 'warn').map((l) => l.msg.replace(/127\.[0-9.]+/g, 'IP')),
    );
    throw new Error(`POST ${path}: ${failed} failed: ${[...reasons].slice(0, 5).join('; ')}`);
  }
  return (Date.now() - t0) / 1000;
}

async function timed(s: TestServer, path: string): Promise<{ p50: number; max: number; bytes: number }> {
  const ms: number[] = [];
  let bytes = 0;
  for (let i = 0; i < 5; i++) {
    const t0 = process.hrtime.bigint();
    const r = await send(s.port, 'GET', path, undefined, { Authorization: TOKEN });
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.text.slice(0, 200)}`);
    bytes = Buffer.byteLength(r.text);
  }
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 0.5), max: ms.at(-1)!, bytes };
}

export default async (): Promise<BenchRow[]> => {
  const s = await startServer({
    config: { log: { level: 'warn' }, rest: { max_response_bytes: 64 * 1024 * 1024, max_request_bytes: 1024 * 1024 } },
  });
  let children: ChildProcess[] = [];
  const rows: BenchRow[] = [];
  try {
    const link = s.app.container.resolve(AgentLink);
    const rooms: number[] = [];
    for (let c = 0; c < 10; c++) {
      const center = await addCenter(s, `Center ${c}`);
      for (let r = 0; r < 10; r++) rooms.push(await addRoom(s, center, `Room ${c}.${r}`, '255.0.0.0'));
    }
    const ips = Array.from({ length: size }, (_, i) => addressOf(i));
    await insertClients(s, ips, (i) => rooms[Math.floor((i * rooms.length) / size)]!);

    let swarm = await connectSwarm(link.port(), ips);
    children = swarm.children;
    await until(() => link.listing().filter((c) => c.last_cmd.result === 'success').length >= swarm.connected, 300_000);
    const first =
      (await inventory(s, link, ips, '/hardware', {})) + (await inventory(s, link, ips, '/software', { disk: '1', partition: '2' }));
    rows.push({
      workload: `history: ${size} PCs, first inventory`,
      figures: {
        connected: swarm.connected,
        seconds: fmt(first, 1),
        history_rows: await count(s, 'client_history'),
        hardware_rows: await count(s, 'client_hardware'),
        software_rows: await count(s, 'client_software'),
      },
    });

    // The storm: every agent drops and comes back; 2% report another inventory.
    for (const child of children) child.send('stop');
    await until(() => link.listing().length === 0, 120_000);
    const t0 = Date.now();
    swarm = await connectSwarm(link.port(), ips);
    children = swarm.children;
    await Promise.all(
      children.map((child) => {
        const heard = new Promise((resolve) => child.once('message', resolve));
        child.send({ changed: changedEvery });
        return heard;
      }),
    );
    await until(() => link.listing().filter((c) => c.last_cmd.result === 'success').length >= swarm.connected, 300_000);
    const reconnected = (Date.now() - t0) / 1000;
    const rowsBefore = await count(s, 'client_history');
    const hardware = await inventory(s, link, ips, '/hardware', {});
    const software = await inventory(s, link, ips, '/software', { disk: '1', partition: '2' });
    const written = (await count(s, 'client_history')) - rowsBefore;
    rows.push({
      workload: `history: ${size} PCs report again after a reboot storm, ${100 / changedEvery}% changed`,
      figures: {
        reconnect_s: fmt(reconnected, 1),
        hardware_s: fmt(hardware, 1),
        software_s: fmt(software, 1),
        history_rows_written: written,
        expected: Math.ceil(size / changedEvery),
      },
    });
    // Once more, nothing changed: no row.
    const rowsAgain = await count(s, 'client_history');
    const again =
      (await inventory(s, link, ips, '/hardware', {})) + (await inventory(s, link, ips, '/software', { disk: '1', partition: '2' }));
    rows.push({
      workload: `history: ${size} PCs report the same again`,
      figures: { seconds: fmt(again, 1), history_rows_written: (await count(s, 'client_history')) - rowsAgain },
    });

    for (const path of [
      '/reports/hardware?by=room',
      '/reports/hardware?by=center',
      '/reports/hardware?by=room&format=csv',
      '/reports/software?name=firefox',
      '/reports/software?name=firefox&format=csv',
      `/client/history?client=${ips[0]}`,
    ]) {
      const t = await timed(s, path);
      rows.push({
        workload: `history: GET ${path.split('?')[0]}?${path.split('?')[1]}`,
        figures: { p50_ms: fmt(t.p50), max_ms: fmt(t.max), kib: fmt(t.bytes / 1024, 0) },
      });
    }
    return rows;
  } finally {
    for (const child of children) child.send('stop');
    await s.close();
  }
};
