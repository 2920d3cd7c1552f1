import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ChildServer, prepareSite, spawnServer } from '../../test/support/child-server';
import { bulkInsert } from '../../test/support/bulk';
import { addLabInventory, addressOf } from './fleet';
import { cpuOf, generate, loadRow } from './measure';
import { type BenchRow, fmt } from './report';

const JOBS = 200;
const PCS = 2000;

/**
 * A site whose jobs table holds 200 ended refreshes of 2,000 PCs each (written straight into
 * the tables, as the jobs plugin would have): GET /jobs from 50 connections, and GET /jobs/<id>
 * of one 2,000-PC job read page by page (following `next`) on a server of its own (its CPU
 * profile written to `profileDir` when given).
 */
export async function jobsRows(seconds: number, profileDir?: string): Promise<BenchRow[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-side-by-side-jobs-'));
  const ips = Array.from({ length: PCS }, (_, i) => addressOf(i));
  let server: ChildServer | undefined;
  try {
    await prepareSite(dir, async (s) => {
      await addLabInventory(s, ips);
      // Today's, a minute apart: none past the jobs' retention, which a start would delete.
      const created = Date.now() - (JOBS + 1) * 60_000;
      await bulkInsert(
        s.app.database,
        'jobs',
        ['kind', 'who', 'source', 'params', 'created_at', 'finished_at'],
        Array.from({ length: JOBS }, (_, j) => ['refresh', 'api_token', 'key', '{}', created + j * 60_000, created + j * 60_000 + 30_000]),
      );
      const rows: unknown[][] = [];
      for (let job = 1; job <= JOBS; job++)
        for (let i = 0; i < PCS; i++) {
          const sent = created + (job - 1) * 60_000;
          rows.push([job, ips[i], 1 + (i % 40), i % 97 === 0 ? 'failed' : 'done', '', 200, 'success', sent, sent + 5000]);
        }
      await bulkInsert(
        s.app.database,
        'job_clients',
        ['job_id', 'ip', 'room', 'state', 'reason', 'status', 'outcome', 'sent_at', 'ended_at'],
        rows,
      );
    });
    server = await spawnServer({
      dir,
      config: { log: { level: 'warn' } },
      nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
    });
    const running = server;
    const list = await cpuOf(server.pid, () => generate({ port: running.port, method: 'GET', path: '/jobs', connections: 50, seconds }));
    const one = await cpuOf(server.pid, () => allPages(running, JOBS));
    return [
      loadRow(`GET /jobs, ${JOBS} jobs of ${PCS} PCs, 50 connections`, list.result, list.cpu, { goal: 'p99 <=100 ms' }),
      {
        workload: `GET /jobs/<id> of a ${PCS}-PC job, every page`,
        figures: {
          first_status: one.result.status,
          pages: one.result.pages,
          lines: one.result.lines,
          ms_all_pages: fmt(one.result.ms, 1),
          cpu_ms_all_pages: fmt(one.cpu, 0),
          goal: 'pages, never a 500',
        },
      },
    ];
  } finally {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every page of GET /jobs/<id> (following `next` as `after`): the first page's status, pages, lines and the time it took. */
async function allPages(server: ChildServer, id: number): Promise<{ status: number; pages: number; lines: number; ms: number }> {
  const t0 = performance.now();
  let status = 0;
  let pages = 0;
  let lines = 0;
  let after: number | null = null;
  do {
    const r = await server.get(`/jobs/${id}${after === null ? '' : `?after=${after}`}`);
    if (pages === 0) status = r.status;
    if (r.status !== 200) break;
    pages++;
    lines += r.body.clients.length;
    after = r.body.next ?? null;
  } while (after !== null);
  return { status, pages, lines, ms: performance.now() - t0 };
}
