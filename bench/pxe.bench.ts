import { readdirSync } from 'node:fs';
import path from 'node:path';
import { addCenter, addRoom, macFor } from '../test/support/fixtures';
import { startServer, TOKEN } from '../test/support/server';
import { load } from './support/load';
import { fmt, type BenchRow } from './support/report';

const CLIENTS = 2000;
/** Distinct addresses in 10.0.0.0/8 (a /8 room, so .0 and .255 are host addresses too). */
const ipFor = (i: number): string => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

/**
 * POST /mode for 2,000 clients: the response returns after every boot file is renamed into
 * place, so request latency is the time until all 4,000 files are written.
 */
export default async function pxeBench(): Promise<BenchRow[]> {
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
