import { addCenter, addRoom } from '../test/support/fixtures';
import { startServer, type TestServer } from '../test/support/server';
import { UdpReceiver } from '../test/support/udp-receiver';
import { percentile } from './support/load';
import { fmt, type BenchRow } from './support/report';

const clientCount = 2000;
const rounds = 7;

/** 127.1.0.1, 127.1.0.2, ...: in a 255.0.0.0 room every directed broadcast is 127.255.255.255. */
const ipOf = (i: number) => `127.1.${i >> 8}.${i & 255}`;

async function addClients(s: TestServer, room: number): Promise<string[]> {
  const ips = Array.from({ length: clientCount }, (_, i) => ipOf(i + 1));
  for (let i = 0; i < ips.length; i += 50) {
    await Promise.all(
      ips.slice(i, i + 50).map(async (ip, j) => {
        const r = await s.post('/client/add', { name: `pc-${ip}`, ip, mac: (i + j + 1).toString(16).padStart(12, '0'), room });
        if (r.status !== 200) throw new Error(`client/add ${ip}: ${r.text}`);
      }),
    );
  }
  return ips;
}

/**
 * POST /wol for 2,000 clients, broadcast type, directed broadcast 127.255.255.255 only:
 * the request's own latency and the time until a loopback receiver (in this process) has
 * the last of the 2,000 magic packets.
 */
export default async function wolBench(): Promise<BenchRow[]> {
  const receiver = await UdpReceiver.bind('127.255.255.255');
  const s = await startServer({
    config: { plugins: ['inventory', 'agents', 'wol'], log: { level: 'warn' }, wol: { port: receiver.port } },
  });
  try {
    const room = await addRoom(s, await addCenter(s), 'Bench lab', '255.0.0.0');
    const ips = await addClients(s, room);
    const requestMs: number[] = [];
    const lastPacketMs: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const before = receiver.packets.length;
      const t0 = process.hrtime.bigint();
      const r = await s.post('/wol', { clients: ips, type: 'broadcast' });
      const answered = process.hrtime.bigint();
      if (r.status !== 200 || r.body.sent.length !== clientCount) throw new Error(`POST /wol: ${r.status} ${r.text.slice(0, 300)}`);
      await receiver.waitFor(before + clientCount, 10_000);
      const last = process.hrtime.bigint();
      requestMs.push(Number(answered - t0) / 1e6);
      lastPacketMs.push(Number(last - t0) / 1e6);
    }
    requestMs.sort((a, b) => a - b);
    lastPacketMs.sort((a, b) => a - b);
    return [
      {
        workload: `POST /wol ${clientCount} clients, broadcast (${rounds} rounds)`,
        figures: {
          request_p50_ms: fmt(percentile(requestMs, 0.5)),
          request_max_ms: fmt(requestMs.at(-1)!),
          last_packet_p50_ms: fmt(percentile(lastPacketMs, 0.5)),
          last_packet_max_ms: fmt(lastPacketMs.at(-1)!),
          packets: receiver.packets.length,
        },
      },
    ];
  } finally {
    await s.close();
    await receiver.close();
  }
}
