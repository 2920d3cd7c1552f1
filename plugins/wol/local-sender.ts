import { Counter } from 'prom-client';
import { inject, injectable, MetricsRegistry, type Registry } from 'ogserve';
import { type Datagram, WakeSocket } from './sender';

/** This instance's wake-on-LAN socket, opened at start and closed at stop, and the count of the packets it sent. */
@injectable()
export class LocalSender {
  private socket?: WakeSocket;
  private readonly packetsSent: Counter;

  constructor(@inject(MetricsRegistry) registry: Registry) {
    this.packetsSent = new Counter({ name: 'ogserve_wol_packets_total', help: 'Magic packets this instance sent', registers: [registry] });
  }

  async open(): Promise<void> {
    this.socket = await WakeSocket.open();
  }

  async close(): Promise<void> {
    await this.socket?.close();
    this.socket = undefined;
  }

  /** Send every datagram to `port`; resolves with each one's error (undefined when sent), in order. */
  async sendAll(datagrams: Datagram[], port: number): Promise<(Error | undefined)[]> {
    if (!this.socket) throw new Error('the wake-on-LAN socket is not open');
    const errors = await this.socket.sendAll(datagrams, port);
    this.packetsSent.inc(errors.filter((error) => error === undefined).length);
    return errors;
  }
}
