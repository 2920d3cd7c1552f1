import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { bulkInsert } from '../test/support/bulk';
import { addCenter, addRoom, macFor } from '../test/support/fixtures';
import { makeTestDir, removeTestStore, startServer, TOKEN } from '../test/support/server';
import { load } from './support/load';
import { fmt, type BenchRow } from './support/report';

const CLIENTS = 2000;
/** Distinct addresses in 10.0.0.0/8 (a /8 room, so .0 and .255 are host addresses too). */
const ipFor = (i: number): string => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

export default async function pxeBench(): Promise<BenchRow[]> {
  return [...(await modeBench()), ...(await startBench())];
}

const START_CLIENTS = 10_000;

/**
 * What checking every client's boot files against its record adds to a start, with
 * 10,000 clients: all files missing (a fresh import), all different (a changed setting),
 * all right (an ordinary restart). The time is the reconciliation's own, from its log line.
 */
async function startBench(): Promise<BenchRow[]> {
  const dir = makeTestDir();
  try {
    const seed = await startServer({ dir, config: { log: { level: 'warn' } } });
    try {
      const db = seed.app.database;
      await bulkInsert(db, 'centers', ['id', 'name'], [[1, 'C']]);
      await bulkInsert(db, 'rooms', ['id', 'name', 'center_id', 'netmask'], [[1, 'R', 1, '255.0.0.0']]);
      await bulkInsert(
        db,
        'clients',
        ['id', 'name', 'ip', 'mac', 'room_id', 'boot'],
        Array.from({ length: START_CLIENTS }, (_, i) => [i + 1, `pc-${i}`, ipFor(i + 1), macFor(i + 1), 1, 'ogLive']),
      );
    } finally {
      await seed.close();
    }
    rmSync(path.join(dir, 'tftpboot'), { recursive: true, force: true });
    const rows: BenchRow[] = [];
    for (const [files, serverIp] of [
      ['missing', '10.0.0.1'],
      ['different', '10.0.0.2'],
      ['right', '10.0.0.2'],
    ] as const) {
      const started = performance.now();
      const s = await startServer({ dir, config: { log: { level: 'info' }, 'pxe-modes': { server_ip: serverIp } } });
      const startMs = performance.now() - started;
      await s.close();
      const line = s.logs.find((l) => String(l.msg).includes('checked against their records'));
      rows.push({
        workload: `start, ${START_CLIENTS} clients, boot files ${files}`,
        figures: {
          reconcileMs: fmt(Number(line?.ms)),
          startMs: fmt(startMs),
          written: Number(line?.missing) + Number(line?.different),
        },
      });
    }
    return rows;
  } finally {
    await removeTestStore(dir);
  }
}

/**
 * POST /mode for 2,000 clients: the response returns after every boot file is renamed into
 * place, so request latency is the time until all 4,000 files are written.
 */
async function modeBench(): Promise<BenchRow[]> {
  const s = await startServer({ config: { log: { level: 'warn' } } });
  try {
    const center = await addCenter(s);
    const room = await addRoom(s, center, 'Room', '255.0.0.0');
    const ips = Array.from({ length: CLIENTS }, (_, i) => ipFor(i + 1));
    const headers = { Authorization: TOKEN };
    const add = await load({
      port: s.port,
      method: 'POST',
      path: '/client/add',
      body: (i: number) => ({ name: `pc-${i}`, ip: ips[i], mac: macFor(i + 1), room }),
      headers,
      connections: 16,
      requests: CLIENTS,
      seconds: 60,
    });
    const modes = ['pxe', '10', '19pxeADMIN', 'ogLive'];
    const mode = await load({
      port: s.port,
      method: 'POST',
      path: '/mode',
      body: (i: number) => ({ clients: ips, mode: modes[i % modes.length] }),
      headers,
      connections: 1,
      requests: 6,
      seconds: 50,
    });
    const written = ['menu.lst', 'grub'].map((d) => readdirSync(path.join(s.dir, 'tftpboot', d)).length);
    return [
      {
        workload: 'POST /client/add (writes 2 boot files each)',
        figures: { requests: add.requests, errors: add.errors, rps: fmt(add.rps), p50ms: fmt(add.p50ms), p99ms: fmt(add.p99ms) },
      },
      {
        workload: `POST /mode ${CLIENTS} clients (${CLIENTS * 2} files)`,
        figures: {
          requests: mode.requests,
          errors: mode.errors,
          p50ms: fmt(mode.p50ms),
          maxms: fmt(mode.p99ms),
          filesPerS: Math.round((CLIENTS * 2) / (mode.p50ms / 1000)),
          filesOnDisk: written.join('+'),
        },
      },
    ];
  } finally {
    await s.close();
  }
}
