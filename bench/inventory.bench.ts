import http from 'node:http';
import type { AddressInfo } from 'node:net';
import polka from 'polka';
import { TOKEN, startServer, type TestServer } from '../test/support/server';
import { load, rssMiB, type LoadResult } from './support/load';
import { type BenchRow, fmt, loadFigures } from './support/report';

const CENTERS = 5;
const ROOMS_PER_CENTER = 8;
const CLIENTS = 2000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 16;

function ipOf(n: number): string {
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

function macOf(n: number): string {
  return n.toString(16).padStart(12, '0');
}

/** 2,000 clients in 40 rooms under 5 centers, built through the REST interface. */
async function populate(s: TestServer): Promise<void> {
  const rooms: number[] = [];
  for (let c = 0; c < CENTERS; c++) {
    const center = (await s.post('/center/add', { name: `center-${c}` })).body.id;
    for (let r = 0; r < ROOMS_PER_CENTER; r++)
      rooms.push((await s.post('/room/add', { center, name: `room-${r}`, netmask: '255.255.255.0' })).body.id);
  }
  for (let i = 1; i <= CLIENTS; i++) {
    const r = await s.post('/client/add', { name: `pc-${i}`, ip: ipOf(i), mac: macOf(i), room: rooms[i % rooms.length] });
    if (r.status !== 200) throw new Error(`populate: ${r.text}`);
  }
}

/** The ceiling: a bare polka route answering a constant JSON body, in this same process. */
async function bareCeiling(): Promise<LoadResult> {
  const app = polka().get('/constant', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    const body = '{"ok":true}';
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(body.length) });
    res.end(body);
  });
  const server = http.createServer(app.handler as http.RequestListener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const result = await load({ port, method: 'GET', path: '/constant', connections: CONNECTIONS, seconds: SECONDS });
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return result;
}

function row(workload: string, r: LoadResult, ceiling: LoadResult): BenchRow {
  return {
    workload,
    figures: {
      ...loadFigures(r),
      rss_MiB: rssMiB(),
      ratio_to_bare: fmt(r.rps / ceiling.rps, 3),
    },
  };
}

export default async function inventoryBench(): Promise<BenchRow[]> {
  const ceiling = await bareCeiling();
  const s = await startServer({ config: { log: { level: 'warn' } } });
  try {
    const t0 = Date.now();
    await populate(s);
    const populateSeconds = (Date.now() - t0) / 1000;
    const headers = { Authorization: TOKEN };
    const scopes = await load({ port: s.port, method: 'GET', path: '/scopes', headers, connections: CONNECTIONS, seconds: SECONDS });
    const info = await load({
      port: s.port,
      method: 'GET',
      path: '/client/info',
      headers,
      connections: CONNECTIONS,
      seconds: SECONDS,
      body: (i: number) => ({ client: [ipOf((i % CLIENTS) + 1)] }),
    });
    // The same reads with a reader token instead of rest.api_token: what checking a token costs.
    const reader = (await s.post('/tokens', { name: 'bench-reader', role: 'reader' })).body.secret as string;
    const infoAsReader = await load({
      port: s.port,
      method: 'GET',
      path: '/client/info',
      headers: { Authorization: reader },
      connections: CONNECTIONS,
      seconds: SECONDS,
      body: (i: number) => ({ client: [ipOf((i % CLIENTS) + 1)] }),
    });
    const add = await load({
      port: s.port,
      method: 'POST',
      path: '/client/add',
      headers,
      connections: CONNECTIONS,
      seconds: SECONDS,
      body: (i: number) => ({ name: `new-${i}`, ip: ipOf(100_000 + i), mac: macOf(100_000 + i), room: 1 }),
    });
    const scopesBytes = (await s.get('/scopes')).text.length;
    return [
      {
        workload: 'bare polka constant JSON (ceiling)',
        figures: { 'req/s': fmt(ceiling.rps, 0), p50_ms: fmt(ceiling.p50ms, 2), p99_ms: fmt(ceiling.p99ms, 2) },
      },
      {
        workload: 'inventory: populate 2,000 clients via REST',
        figures: { seconds: fmt(populateSeconds, 1), 'adds/s': fmt(CLIENTS / populateSeconds, 0) },
      },
      row(`GET /scopes (2,000 clients, ${scopesBytes} bytes)`, scopes, ceiling),
      row('GET /client/info', info, ceiling),
      row('GET /client/info, with a reader token', infoAsReader, ceiling),
      row('POST /client/add (unique MACs)', add, ceiling),
    ];
  } finally {
    await s.close();
  }
}
