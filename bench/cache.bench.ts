import { startServer, TOKEN } from '../test/support/server';
import { addBenchClients, addCacheContents } from './support/fleet';
import { load } from './support/load';
import { fmt, type BenchRow } from './support/report';

const CLIENTS = 100;
const IMAGES = 8;

/**
 * GET /cache/list for 100 clients with 8 cached images each, as a console polls it: each
 * client has a disk with a CACHE partition, and its cache contents as its agent reported them.
 */
export default async function cacheBench(): Promise<BenchRow[]> {
  const s = await startServer({ config: { log: { level: 'warn' } } });
  try {
    const ips = Array.from({ length: CLIENTS }, (_, i) => `127.0.3.${i + 1}`);
    await addBenchClients(s, ips);
    const ids = (await s.app.database.query('select id from clients order by id')).map((r) => Number(r.id));
    await addCacheContents(s, ids, IMAGES);
    const list = await load({
      port: s.port,
      method: 'GET',
      path: '/cache/list',
      body: { clients: ips },
      headers: { Authorization: TOKEN },
      connections: Number(process.env.CONN ?? 8),
      seconds: 5,
    });
    return [
      {
        workload: `GET /cache/list, ${CLIENTS} clients x ${IMAGES} images`,
        figures: { rps: fmt(list.rps), p50ms: fmt(list.p50ms, 2), p99ms: fmt(list.p99ms, 2), errors: list.errors, goal_rps: 1000 },
      },
    ];
  } finally {
    await s.close();
  }
}
