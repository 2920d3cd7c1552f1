import { Counter, Gauge, type Registry } from 'ogserve';

export type PushResult = 'changed' | 'in_step' | 'refused' | 'unreachable';

/** Pushes to Kea by result, and whether changes wait to be sent. */
export class DhcpMetrics {
  private readonly pushes: Counter<'result'>;
  private readonly waiting: Gauge;

  constructor(registry: Registry) {
    this.pushes = new Counter({
      name: 'ogserve_dhcp_pushes_total',
      help: 'Attempts to put Kea in step: changed (one config-set), in_step (nothing to send), refused (config-test or config-set said no), unreachable',
      labelNames: ['result'],
      registers: [registry],
    });
    this.waiting = new Gauge({
      name: 'ogserve_dhcp_pending',
      help: '1 while inventory changes wait to be sent to Kea (debounce, or Kea not answering), else 0',
      registers: [registry],
    });
  }

  pushed(result: PushResult): void {
    this.pushes.inc({ result });
  }

  pending(waiting: boolean): void {
    this.waiting.set(waiting ? 1 : 0);
  }
}
