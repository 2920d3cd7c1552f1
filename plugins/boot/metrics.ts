import { Counter, Gauge, Histogram, type Registry } from 'ogserve';
import type { Transfer } from '../transfers';

/** What the boot files cost: transfers under way, bytes sent, how long each stage took, transfers cut for stalling, refusals. */
export class BootMetrics {
  private readonly bytes: Counter<string>;
  private readonly seconds: Histogram<'stage'>;
  private readonly stalled: Counter<string>;
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
    this.stalled = new Counter({
      name: 'ogserve_boot_transfers_stalled_total',
      help: 'Boot file transfers cut because no byte moved for boot.stall_s',
      registers: [registry],
    });
    this.refused = new Counter({
      name: 'ogserve_boot_refused_total',
      help:
        'Boot requests refused: busy (boot.max_transfers), not_allowed (boot.allow), damaged (not as its manifest says), ' +
        'too_many_scripts (boot.scripts_per_minute)',
      labelNames: ['reason'],
      registers: [registry],
    });
  }

  transferred(transfer: Transfer, stage: string | undefined): void {
    this.bytes.inc(transfer.bytes);
    this.seconds.observe({ stage: stage ?? 'other' }, transfer.ms / 1000);
    if (transfer.stalled) this.stalled.inc();
  }

  refusedFor(reason: 'busy' | 'not_allowed' | 'damaged' | 'too_many_scripts'): void {
    this.refused.inc({ reason });
  }
}
