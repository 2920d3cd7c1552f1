import { discover } from '../test/support/dhcp-client';
import { addCenter, addRoom } from '../test/support/fixtures';
import { type Kea, startKea } from '../test/support/kea';
import { startServer, type TestServer } from '../test/support/server';
import { benchMac } from './support/fleet';
import { percentile } from './support/load';
import { fmt, type BenchRow } from './support/report';

const rooms = 40;
const perRoom = 50;

const ipOf = (room: number, n: number) => `127.2.${room + 1}.${n + 10}`;

/** 2,000 POST /client/add in 40 rooms of 50, one after the other: each request's latency, and the wall time. */
async function addFleet(s: TestServer): Promise<{ ms: number[]; wallMs: number }> {
  const center = await addCenter(s, 'Bench');
  const ms: number[] = [];
  const t0 = performance.now();
  for (let room = 0; room < rooms; room++) {
    const id = await addRoom(s, center, `Lab ${room + 1}`, '255.255.255.0', { gateway: `127.2.${room + 1}.1` });
    // One request after the other, as a site's script adds a room: each latency is the request's own.
    for (let n = 0; n < perRoom; n++) {
      const ip = ipOf(room, n);
      const start = performance.now();
      const r = await s.post('/client/add', { name: `pc-${room}-${n}`, ip, mac: benchMac(room * perRoom + n), room: id });
      ms.push(performance.now() - start);
      if (r.status !== 200) throw new Error(`client/add ${ip}: ${r.text}`);
    }
  }
  return { ms: ms.sort((a, b) => a - b), wallMs: performance.now() - t0 };
}

/** Until Kea holds every reservation and offers the last PC its address: ms since `t0`. */
async function servedAll(kea: Kea, t0: number): Promise<number> {
  const last = { room: rooms - 1, n: perRoom - 1 };
  for (;;) {
    const config = (await kea.command('config-get')).arguments?.Dhcp4;
    const reservations = (config?.subnet4 ?? []).reduce(
      (sum: number, s: { reservations?: unknown[] }) => sum + (s.reservations?.length ?? 0),
      0,
    );
    if (reservations >= rooms * perRoom) {
      const offer = await discover({
        giaddr: `127.2.${last.room + 1}.254`,
        mac: benchMac(last.room * perRoom + last.n),
        arch: 0,
        serverPort: kea.serverPort,
        clientPort: kea.clientPort,
        waitMs: 1000,
      });
      if (offer?.yiaddr === ipOf(last.room, last.n)) return performance.now() - t0;
    }
    if (performance.now() - t0 > 300_000) throw new Error('Kea did not serve the fleet in 5 minutes');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The dhcp plugin's cost: 2,000 clients added through POST /client/add in rooms of 50, with
 * the plugin driving a real Kea (debounce 500 ms, the default) and without it: the requests'
 * latency, the number of configurations Kea was given (config-set in its log), and the time
 * from the last add answered until Kea holds every reservation and offers the last PC.
 */
export default async function dhcpBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const plain = await startServer({ config: { plugins: ['inventory'], log: { level: 'warn' } } });
  try {
    const { ms, wallMs } = await addFleet(plain);
    rows.push({
      workload: `POST /client/add x${rooms * perRoom}, rooms of ${perRoom}, no dhcp`,
      figures: { p50_ms: fmt(percentile(ms, 0.5)), p99_ms: fmt(percentile(ms, 0.99)), wall_s: fmt(wallMs / 1000) },
    });
  } finally {
    await plain.close();
  }

  const kea = await startKea();
  const s = await startServer({ config: { plugins: ['inventory', 'dhcp'], log: { level: 'warn' }, dhcp: { control_agent: kea.url } } });
  try {
    // The first push (ogserve's boot classes) is not the fleet's.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const setsBefore = kea.received('config-set');
    const { ms, wallMs } = await addFleet(s);
    const answered = performance.now();
    const servedMs = await servedAll(kea, answered);
    rows.push({
      workload: `POST /client/add x${rooms * perRoom}, rooms of ${perRoom}, dhcp on`,
      figures: {
        p50_ms: fmt(percentile(ms, 0.5)),
        p99_ms: fmt(percentile(ms, 0.99)),
        wall_s: fmt(wallMs / 1000),
        kea_config_sets: kea.received('config-set') - setsBefore,
        served_after_last_add_ms: fmt(servedMs, 0),
      },
    });
  } finally {
    await s.close();
    await kea.close();
  }
  return rows;
}
