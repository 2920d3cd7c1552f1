import dgram from 'node:dgram';
import dns from 'node:dns';
import net from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';

export interface Datagram {
  address: string;
  packet: Buffer;
}

/**
 * Packets handed to the kernel before the event loop gets a turn. 32 is what libuv reads
 * per socket per turn, so a receiver in this process (tests, benches) keeps pace instead
 * of overflowing its buffer, and other requests are served between batches; 4,000 packets
 * still leave in well under 100 ms.
 */
const batchSize = 32;

/**
 * The socket's name resolution. Every address POST /wol sends to is an IPv4 literal, which
 * dns.lookup only hands back a tick later (one tick per datagram, thousands per request):
 * answered at once instead. Anything else still goes to dns.lookup.
 */
const literalLookup: dgram.SocketOptions['lookup'] = (address, family, callback) => {
  if (net.isIPv4(address)) callback(null, address, 4);
  else dns.lookup(address, family, callback);
};

/** One UDP socket with SO_BROADCAST for every magic packet, opened at start, closed at stop. */
export class WakeSocket {
  private constructor(private readonly socket: dgram.Socket) {}

  static open(): Promise<WakeSocket> {
    const socket = dgram.createSocket({ type: 'udp4', lookup: literalLookup });
    return new Promise((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, () => {
        socket.off('error', reject);
        socket.setBroadcast(true);
        // A late asynchronous error must not crash the service; each send reports its own.
        socket.on('error', () => undefined);
        resolve(new WakeSocket(socket));
      });
    });
  }

  /** Send every datagram to `port`; resolves with each one's error (undefined when sent), in order. */
  async sendAll(datagrams: Datagram[], port: number): Promise<(Error | undefined)[]> {
    // One array that the send callbacks fill, and one promise for all of them: not a promise per datagram.
    const results = new Array<Error | undefined>(datagrams.length).fill(undefined);
    if (datagrams.length === 0) return results;
    let pending = datagrams.length;
    let allDone!: () => void;
    const done = new Promise<void>((resolve) => (allDone = resolve));
    const settle = (i: number, error: Error | null | undefined) => {
      if (error) results[i] = error;
      if (--pending === 0) allDone();
    };
    for (let i = 0; i < datagrams.length; i++) {
      if (i > 0 && i % batchSize === 0) await nextTurn();
      const { address, packet } = datagrams[i]!;
      try {
        this.socket.send(packet, port, address, (error) => settle(i, error));
      } catch (error) {
        settle(i, error as Error);
      }
    }
    await done;
    return results;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}
