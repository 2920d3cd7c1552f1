import { startServer } from '../test/support/server';
import { UdpReceiver } from '../test/support/udp-receiver';
import { addBenchClients } from './support/fleet';
import { fmt, type BenchRow } from './support/report';

const clientCount = 2000;
/** 20 bursts of 100 clients 50 ms apart, two packets each; checked 2 s later, woken once more, checked again. */
const pacing = { batch: 100, interval_ms: 50, repeats: 2, repeat_ms: 20, verify_s: 2, retries: 1 };

/** 127.1.0.1, 127.1.0.2, ...: in a 255.0.0.0 room every directed broadcast is 127.255.255.255. */
const ipOf = (i: number) => `127.1.${i >> 8}.${i & 255}`;

/**
 * A wake run of 2,000 clients with verification, on the system clock: 20 bursts of 100
 * clients 50 ms apart, two packets each, a check 2 s after them, one retry, then
 * wake_failed (no agent connects: each is `never_seen`, the reason that asks the database).
 * The figures: the POST's latency, how long until the run ended, the CPU it took and the
 * heap it held while running.
 */
export default async function wakeRunsBench(): Promise<BenchRow[]> {
  const receiver = await UdpReceiver.bind('127.255.255.255');
  const s = await startServer({
    config: { plugins: ['inventory', 'agents', 'wol', 'jobs'], log: { level: 'warn' }, wol: { port: receiver.port, ...pacing } },
  });
  try {
    const ips = Array.from({ length: clientCount }, (_, i) => ipOf(i + 1));
    await addBenchClients(s, ips);
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    let heapPeak = heapBefore;
    const sampler = setInterval(() => {
      heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
    }, 50);
    const cpu0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    const r = await s.post('/wol', { clients: ips, type: 'broadcast' });
    const answered = process.hrtime.bigint();
    if (r.status !== 200 || r.body.sent.length !== clientCount) throw new Error(`POST /wol: ${r.status} ${r.text.slice(0, 300)}`);
    let run: { state: string; states: Record<string, number> };
    for (;;) {
      run = (await s.get(`/wol/runs/${r.body.run}?state=awake`)).body;
      if (run.state !== 'running') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const ended = process.hrtime.bigint();
    clearInterval(sampler);
    const cpu = process.cpuUsage(cpu0);
    const packets = (await receiver.flush()).length;
    return [
      {
        workload: `wake run of ${clientCount} clients: ${JSON.stringify(pacing)}`,
        figures: {
          request_ms: fmt(Number(answered - t0) / 1e6),
          run_s: fmt(Number(ended - t0) / 1e9),
          cpu_ms: fmt((cpu.user + cpu.system) / 1000),
          heap_growth_mib: fmt((heapPeak - heapBefore) / 2 ** 20),
          packets,
          wake_failed: run.states.wake_failed ?? 0,
        },
      },
    ];
  } finally {
    await s.close();
    await receiver.close();
  }
}
