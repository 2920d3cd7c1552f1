import dgram from 'node:dgram';
import { performance } from 'node:perf_hooks';

/**
 * A storm of TFTP fetches at once, as a room of PCs switched on together asks for its first
 * stage: each PC from an address of its own (127.1.x.y), asking `blksize 1468` and `tsize`
 * as UEFI firmware does, acknowledging each block, asking again after a second without an
 * answer. Run as its own process (`node tftp-storm.js PORT FILE COUNT SIZE`), so that its CPU
 * is not the server's; prints `{seconds, done, failed, retries, bytes}` as JSON.
 */
const blksize = 1468;

interface Outcome {
  ok: boolean;
  bytes: number;
  retries: number;
}

function fetchOne(port: number, file: string, source: string, size: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = dgram.createSocket('udp4');
    let expected = 1;
    let bytes = 0;
    let retries = 0;
    let last: Buffer = Buffer.from(`\0\x01${file}\0octet\0blksize\0${blksize}\0tsize\x000\0`, 'latin1');
    let peer = { port, address: '127.0.0.1' };
    const timer = setInterval(() => {
      if (++retries > 10) return finish(false);
      socket.send(last, peer.port, peer.address);
    }, 1000);
    const finish = (ok: boolean) => {
      clearInterval(timer);
      socket.close();
      resolve({ ok: ok && bytes === size, bytes, retries });
    };
    const send = (packet: Buffer) => {
      last = packet;
      socket.send(packet, peer.port, peer.address);
    };
    const ack = (block: number) => {
      const packet = Buffer.alloc(4);
      packet.writeUInt16BE(4, 0);
      packet.writeUInt16BE(block & 0xffff, 2);
      send(packet);
    };
    socket.on('message', (packet, from) => {
      peer = { port: from.port, address: from.address };
      const op = packet.readUInt16BE(0);
      if (op === 6) return ack(0);
      if (op === 5) return finish(false);
      if (op !== 3) return;
      const block = packet.readUInt16BE(2);
      if (block === (expected & 0xffff)) {
        bytes += packet.length - 4;
        expected++;
        ack(block);
        timer.refresh();
        if (packet.length - 4 < blksize) finish(true);
      } else ack(block);
    });
    socket.bind(0, source, () => send(last));
  });
}

async function main(): Promise<void> {
  const [port, file, count, size] = process.argv.slice(2);
  const n = Number(count);
  const started = performance.now();
  const outcomes = await Promise.all(
    Array.from({ length: n }, (_, i) => fetchOne(Number(port), file!, `127.1.${(i >> 8) & 255}.${(i & 255) + 1}`, Number(size))),
  );
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(
    JSON.stringify({
      seconds,
      done: outcomes.filter((o) => o.ok).length,
      failed: outcomes.filter((o) => !o.ok).length,
      retries: outcomes.reduce((sum, o) => sum + o.retries, 0),
      bytes: outcomes.reduce((sum, o) => sum + o.bytes, 0),
    }),
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
