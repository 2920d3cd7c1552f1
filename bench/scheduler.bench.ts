import { TOKEN, startServer, type TestServer } from '../test/support/server';
import { UdpReceiver } from '../test/support/udp-receiver';
import { load, rssMiB } from './support/load';
import { fmt, type BenchRow } from './support/report';

const CLIENTS = 2000;
const STEPS = 3;
const RUNS = 3;
const SCHEDULES = 200;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

/** 127.1.0.1, ...: loopback, so that wake packets (to 127.255.255.255) never leave the machine. */
function ipOf(n: number): string {
  return `127.1.${(n >> 8) & 255}.${n & 255}`;
}

async function populate(s: TestServer): Promise<{ center: number; ips: string[] }> {
  const center = (await s.post('/center/add', { name: 'bench' })).body.id;
  const room = (await s.post('/room/add', { center, name: 'room', netmask: '255.0.0.0' })).body.id;
  const ips: string[] = [];
  for (let i = 1; i <= CLIENTS; i++) {
    const r = await s.post('/client/add', { name: `pc-${i}`, ip: ipOf(i), mac: i.toString(16).padStart(12, '0'), room });
    if (r.status !== 200) throw new Error(`populate: ${r.text}`);
    ips.push(ipOf(i));
  }
  return { center, ips };
}

/**
 * Queueing cost (POST /procedure/run of a 3-step procedure for 2,000 clients: 6,000
 * action rows in one transaction), a wake step for the 2,000 (rows, packets to a loopback
 * receiver, results) and POST /schedule/get with 200 schedules. No agents are connected, so
 * this measures the server side only.
 */
export default async function schedulerBench(): Promise<BenchRow[]> {
  const receiver = await UdpReceiver.bind('127.255.255.255');
  const s = await startServer({
    // shell: the steps are scripts, a command the shell plugin defines.
    config: {
      plugins: ['inventory', 'agents', 'wol', 'shell', 'groups', 'scheduler'],
      log: { level: 'warn' },
      wol: { port: receiver.port },
    },
  });
  try {
    const { center, ips } = await populate(s);
    const steps = Array.from({ length: STEPS }, (_, i) => ({ command: 'run', params: { run: `echo ${i}` } }));
    const added = await s.post('/procedure/add', { center, name: 'bench', steps });
    if (added.status !== 200) throw new Error(`procedure/add: ${added.text}`);
    const procedure = added.body.id;
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const started = process.hrtime.bigint();
      const r = await s.post('/procedure/run', { clients: ips, procedure: String(procedure) });
      if (r.status !== 200) throw new Error(`procedure/run: ${r.text}`);
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    const best = Math.min(...times);
    const rows: BenchRow[] = [
      {
        workload: `procedure/run ${STEPS} steps x ${CLIENTS} clients`,
        figures: { best_ms: fmt(best, 0), 'rows/s': fmt((STEPS * CLIENTS) / (best / 1000), 0), rss_MiB: rssMiB() },
      },
    ];
    const wake = (await s.post('/procedure/add', { center, name: 'wake', steps: [{ command: 'wol', params: { type: 'broadcast' } }] })).body
      .id;
    const wakeTimes: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const before = receiver.packets.length;
      const started = process.hrtime.bigint();
      const r = await s.post('/procedure/run', { clients: ips, procedure: String(wake) });
      if (r.status !== 200) throw new Error(`procedure/run (wake): ${r.text}`);
      wakeTimes.push(Number(process.hrtime.bigint() - started) / 1e6);
      await receiver.waitFor(before + CLIENTS);
    }
    rows.push({
      workload: `wol step x ${CLIENTS} clients (packets sent, rows done, in the request)`,
      figures: { best_ms: fmt(Math.min(...wakeTimes), 0), worst_ms: fmt(Math.max(...wakeTimes), 0), rss_MiB: rssMiB() },
    });
    const task = (await s.post('/task/add', { center, name: 't', steps: [{ procedure }] })).body.id;
    for (let i = 0; i < SCHEDULES; i++) {
      const when = { years: [2027 + (i % 50)], months: 4095, days: 2 ** 31 - 1, hours: 4095, am_pm: i % 2, minutes: i % 60 };
      const r = await s.post('/schedule/create', { task, name: `s${i}`, type: 'task', when });
      if (r.status !== 200) throw new Error(`schedule/create: ${r.text}`);
    }
    const got = await load({
      port: s.port,
      method: 'POST',
      path: '/schedule/get',
      body: {},
      headers: { Authorization: TOKEN },
      connections: 16,
      seconds: SECONDS,
    });
    rows.push({
      workload: `schedule/get, ${SCHEDULES} schedules`,
      figures: { 'req/s': fmt(got.rps, 0), p50_ms: fmt(got.p50ms, 2), p99_ms: fmt(got.p99ms, 2), errors: got.errors, rss_MiB: rssMiB() },
    });
    return rows;
  } finally {
    await s.close();
    await receiver.close();
  }
}
