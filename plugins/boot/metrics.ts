import { Counter, Gauge, Histogram, type Registry } from 'ogserve';
import type { Transfer } from './files';

/** What the boot files cost: transfers under way, bytes sent, how long each stage took, refusals. */
export class BootMetrics {
  private readonly bytes: Counter<string>;
  private readonly seconds: Histogram<'stage'>;
  private readonly refused: Counter<'reason'>;

  constructor(registry: Registry, inFlight: () => number) {
    new Gauge({
      name: 'ogserve_boot_transfers_active',
      help: 'Boot file transfers under way',
      registers: [registry],
      collect() {
        this.set(inFlight());
      },
    });
    this.bytes = new Counter({ name: 'ogserve_boot_bytes_total', help: 'Bytes of boot files sent', registers: [registry] });
    this.seconds = new Histogram({
      name: 'ogserve_boot_transfer_seconds',
      help: 'How long a boot file transfer took, by stage (loader, kernel, initrd, root, other)',
      labelNames: ['stage'],
      buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
      registers: [registry],
    });
    this.refused = new Counter({
      name: 'ogserve_boot_refused_total',
      help: 'Boot file requests refused: busy (boot.max_transfers), not_allowed (boot.allow), damaged (not as its manifest says)',
      labelNames: ['reason'],
      registers: [registry],
    });
  }

  transferred(transfer: Transfer, stage: string | undefined): void {
    this.bytes.inc(transfer.bytes);
    this.seconds.observe({ stage: stage ?? 'other' }, transfer.ms / 1000);
  }

  refusedFor(reason: 'busy' | 'not_allowed' | 'damaged'): void {
    this.refused.inc({ reason });
  }
}
