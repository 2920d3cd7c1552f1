import dgram from 'node:dgram';

export interface Received {
  data: Buffer;
  from: string;
}

const flushMarker = 'ogserve-test-flush';

/**
 * A UDP receiver bound to one loopback address (a broadcast address such as 127.255.255.255
 * works too), for tests and benches of what the service sends. Only 127.0.0.0/8.
 */
export class UdpReceiver {
  /** Packets received so far, flush markers left out. */
  readonly packets: Received[] = [];
  private readonly markers = new Set<string>();
  private waiters: (() => void)[] = [];
  private flushes = 0;

  private constructor(
    private readonly socket: dgram.Socket,
    readonly address: string,
    readonly port: number,
  ) {
    socket.on('message', (data, rinfo) => {
      if (data.length > flushMarker.length && data.subarray(0, flushMarker.length).toString() === flushMarker)
        this.markers.add(data.toString());
      else this.packets.push({ data, from: rinfo.address });
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  static bind(address: string, port = 0): Promise<UdpReceiver> {
    if (!address.startsWith('127.')) throw new Error(`tests stay on loopback; refusing to bind ${address}`);
    const socket = dgram.createSocket({ type: 'udp4', recvBufferSize: 4 * 1024 * 1024 });
    return new Promise((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(port, address, () => {
        socket.off('error', reject);
        resolve(new UdpReceiver(socket, address, socket.address().port));
      });
    });
  }

  /** Resolves once `count` packets (not counting flush markers) arrived; rejects after `timeoutMs`. */
  async waitFor(count: number, timeoutMs = 5000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.packets.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${this.address}:${this.port} got ${this.packets.length} of ${count} packets within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return [...this.packets];
  }

  /**
   * Everything that reached this receiver before now: sends a marker to itself and waits for
   * it. Loopback delivers in order, so a packet sent earlier has arrived by then.
   */
  async flush(timeoutMs = 5000): Promise<Received[]> {
    const marker = `${flushMarker}-${++this.flushes}`;
    const sender = dgram.createSocket('udp4');
    try {
      await new Promise<void>((resolve, reject) => sender.bind(0, '127.0.0.1', () => resolve()).once('error', reject));
      sender.setBroadcast(true);
      await new Promise<void>((resolve, reject) =>
        sender.send(marker, this.port, this.address, (error) => (error ? reject(error) : resolve())),
      );
      const deadline = Date.now() + timeoutMs;
      while (!this.markers.has(marker)) {
        if (Date.now() > deadline) throw new Error(`flush marker to ${this.address}:${this.port} not received within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    } finally {
      sender.close();
    }
    return [...this.packets];
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}
