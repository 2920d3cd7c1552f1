import { TOKEN, startServer } from '../test/support/server';
import { UdpReceiver } from '../test/support/udp-receiver';
import { addBenchClients } from './support/fleet';
import { load, percentile } from './support/load';
import { fmt, type BenchRow } from './support/report';

const wolClients = 2000;
const wolRounds = 20;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const plugins = ['inventory', 'agents', 'wol', 'tokens'];

/** 127.1.0.1 ...: a 255.0.0.0 room, so every directed broadcast stays 127.255.255.255. */
const ipOf = (i: number) => `127.1.${i >> 8}.${i & 255}`;

/**
 * What the audit log costs: POST /wol for 2,000 clients and POST /client/add, each on a
 * server without the audit plugin and on one with it (every request then also an entry),
 * after a first pass that is not reported (it warms the JIT, which would otherwise favour
 * whichever runs second). CPU is this process's (the server and the load run here), per request.
 */
export default async function auditBench(): Promise<BenchRow[]> {
  const receiver = await UdpReceiver.bind('127.255.255.255');
  const rows: BenchRow[] = [];
  try {
    for (const [pass, audited] of [false, false, true].entries()) {
      const s = await startServer({
        config: {
          plugins: audited ? [...plugins, 'audit'] : plugins,
          log: { level: 'warn' },
          wol: { port: receiver.port },
        },
      });
      try {
        const ips = Array.from({ length: wolClients }, (_, i) => ipOf(i + 1));
        await addBenchClients(s, ips);
        const label = audited ? 'audited' : 'no audit';
        const report = (row: BenchRow) => pass > 0 && rows.push(row);

        const wolMs: number[] = [];
        const cpu0 = process.cpuUsage();
        for (let round = 0; round < wolRounds; round++) {
          const before = receiver.packets.length;
          const t0 = process.hrtime.bigint();
          const r = await s.post('/wol', { clients: ips, type: 'broadcast' });
          if (r.status !== 200) throw new Error(`POST /wol: ${r.status} ${r.text.slice(0, 300)}`);
          await receiver.waitFor(before + wolClients, 10_000);
          wolMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
        }
        const wolCpu = process.cpuUsage(cpu0);
        wolMs.sort((a, b) => a - b);
        report({
          workload: `POST /wol ${wolClients} clients, ${label}`,
          figures: {
            last_packet_p50_ms: fmt(percentile(wolMs, 0.5)),
            last_packet_max_ms: fmt(wolMs.at(-1)!),
            cpu_ms_each: fmt((wolCpu.user + wolCpu.system) / 1000 / wolRounds),
          },
        });

        const cpu1 = process.cpuUsage();
        const add = await load({
          port: s.port,
          method: 'POST',
          path: '/client/add',
          headers: { Authorization: TOKEN, 'Content-Type': 'application/json' },
          connections: 8,
          seconds: SECONDS,
          body: (i: number) => ({ name: `new-${i}`, ip: ipOf(10_000 + i), mac: (100_000 + i).toString(16).padStart(12, '0'), room: 1 }),
        });
        const addCpu = process.cpuUsage(cpu1);
        report({
          workload: `POST /client/add, ${label}`,
          figures: {
            'req/s': fmt(add.rps, 0),
            p50_ms: fmt(add.p50ms, 2),
            p99_ms: fmt(add.p99ms, 2),
            errors: add.errors,
            cpu_ms_each: fmt((addCpu.user + addCpu.system) / 1000 / Math.max(1, add.requests), 3),
          },
        });
        if (audited) {
          const entries = (await s.get('/audit?limit=1')).body.entries.length;
          if (entries !== 1) throw new Error('the audited server kept no entry');
        }
      } finally {
        await s.close();
      }
    }
  } finally {
    await receiver.close();
  }
  return rows;
}
