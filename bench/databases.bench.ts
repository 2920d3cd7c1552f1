import { macFor } from '../test/support/fixtures';
import { startServer, TOKEN, type TestServer } from '../test/support/server';
import type { TestEngine } from '../test/support/test-db';
import { bulkInsert, ipFor } from '../test/support/bulk';
import { load, type LoadResult } from './support/load';
import { fmt, type BenchRow } from './support/report';

/**
 * Inventory write and read figures on each database engine, side by side: the same server
 * and the same requests over SQLite (a file in a temp dir), MariaDB and PostgreSQL (a fresh
 * database on the loopback server, as the tests use: see test/support/test-db.ts). An
 * engine whose server does not answer is shown as unavailable.
 */
const engines: TestEngine[] = ['sqlite', 'mariadb', 'postgresql'];
const adds = 800;
/** Below the 256 KiB response cap: the tree of 2000 clients is about 150 KiB. */
const scopeClients = 2000;
const connections = 8;

interface EngineFigures {
  add: LoadResult;
  info: LoadResult;
  scopes: LoadResult;
}

async function measure(engine: TestEngine): Promise<EngineFigures> {
  const s = await startServer({ engine, config: { log: { level: 'warn' } } });
  try {
    const room = await setup(s);
    const headers = { Authorization: TOKEN };
    const add = await load({
      port: s.port,
      method: 'POST',
      path: '/client/add',
      body: (i: number) => ({ name: `pc${i}`, ip: ipFor(i + 1), mac: macFor(i + 1), room }),
      headers,
      connections,
      requests: adds,
      seconds: 20,
    });
    const added = add.requests - add.errors;
    const info = await load({
      port: s.port,
      method: 'GET',
      path: '/client/info',
      body: (i: number) => ({ client: [ipFor((i % added) + 1)] }),
      headers,
      connections,
      seconds: 4,
    });
    // The tree is read with thousands of clients in it, as a console polls it.
    await bulkInsert(
      s.app.database,
      'clients',
      ['name', 'ip', 'mac', 'room_id'],
      Array.from({ length: scopeClients - added }, (_, i) => [`bulk${i}`, ipFor(100_000 + i), macFor(100_000 + i), room]),
    );
    const scopes = await load({ port: s.port, method: 'GET', path: '/scopes', headers, connections, seconds: 4 });
    return { add, info, scopes };
  } finally {
    await s.close();
  }
}

async function setup(s: TestServer): Promise<number> {
  const center = await s.post('/center/add', { name: 'Bench' });
  const room = await s.post('/room/add', { center: center.body.id, name: 'R', netmask: '255.0.0.0' });
  return room.body.id as number;
}

const cell = (r: LoadResult): string => `${fmt(r.rps, 0)}rps/p99=${fmt(r.p99ms)}ms${r.errors ? `/errors=${r.errors}` : ''}`;

export default async (): Promise<BenchRow[]> => {
  const results = new Map<TestEngine, EngineFigures | string>();
  for (const engine of engines) {
    try {
      results.set(engine, await measure(engine));
    } catch (error) {
      results.set(engine, `unavailable (${(error as Error).message.split('\n')[0]!.slice(0, 60)})`);
    }
  }
  const row = (workload: string, pick: (f: EngineFigures) => LoadResult): BenchRow => ({
    workload,
    figures: Object.fromEntries(
      engines.map((e) => {
        const r = results.get(e)!;
        return [e, typeof r === 'string' ? r : cell(pick(r))];
      }),
    ),
  });
  return [
    row(`POST /client/add x${adds} c=${connections}`, (f) => f.add),
    row(`GET /client/info c=${connections}`, (f) => f.info),
    row(`GET /scopes ${scopeClients} clients c=${connections}`, (f) => f.scopes),
  ];
};
