import { Counter, Gauge, MetricsRegistry, type Registry, inject, injectable } from 'ogserve';

/** Sessions, the PCs' ends and the bytes streamed, for Prometheus. */
@injectable()
export class MulticastMetrics {
  readonly running: Gauge;
  readonly sessions: Counter<'state'>;
  readonly clients: Counter<'state'>;
  readonly bytes: Counter;
  readonly retransmits: Counter;

  constructor(@inject(MetricsRegistry) registry: Registry) {
    this.running = new Gauge({ name: 'ogserve_multicast_senders', help: 'udp-sender processes running now', registers: [registry] });
    this.sessions = new Counter({
      name: 'ogserve_multicast_sessions_total',
      help: 'Multicast sessions ended, by state: done, failed, cancelled',
      labelNames: ['state'],
      registers: [registry],
    });
    this.clients = new Counter({
      name: 'ogserve_multicast_clients_total',
      help: "PCs' ends in multicast sessions, by state: done, dropped, missing, cancelled, failed, skipped",
      labelNames: ['state'],
      registers: [registry],
    });
    this.bytes = new Counter({
      name: 'ogserve_multicast_bytes_total',
      help: 'Bytes of image streamed by multicast senders',
      registers: [registry],
    });
    this.retransmits = new Counter({
      name: 'ogserve_multicast_retransmits_total',
      help: 'Blocks multicast senders sent again',
      registers: [registry],
    });
  }
}
