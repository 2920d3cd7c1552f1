import { Counter, Gauge, type Registry } from 'ogserve';
import type { Refusal, TransferEnd } from './server';

/** What the TFTP server does: transfers under way and how they ended, bytes, blocks sent again, refusals. */
export class TftpMetrics {
  private readonly transfers: Counter<'outcome'>;
  private readonly bytes: Counter<string>;
  private readonly retransmits: Counter<string>;
  private readonly refused: Counter<'reason'>;

  constructor(registry: Registry, active: () => number) {
    new Gauge({
      name: 'ogserve_tftp_transfers_active',
      help: 'TFTP transfers under way',
      registers: [registry],
      collect() {
        this.set(active());
      },
    });
    this.transfers = new Counter({
      name: 'ogserve_tftp_transfers_total',
      help: 'TFTP transfers ended, by outcome: done, cut_short (the PC stopped it), timed_out, failed',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.bytes = new Counter({ name: 'ogserve_tftp_bytes_total', help: 'File bytes PCs acknowledged over TFTP', registers: [registry] });
    this.retransmits = new Counter({
      name: 'ogserve_tftp_retransmits_total',
      help: 'TFTP data blocks sent again (time-outs, lost blocks)',
      registers: [registry],
    });
    this.refused = new Counter({
      name: 'ogserve_tftp_refused_total',
      help: 'TFTP requests not served: not_found, access (path rules), damaged (not as its manifest says), write, bad_request, busy (tftp.max_transfers), rate (tftp.requests_per_minute), not_allowed (tftp.allow)',
      labelNames: ['reason'],
      registers: [registry],
    });
  }

  ended(end: TransferEnd): void {
    this.transfers.inc({ outcome: end.outcome });
    this.bytes.inc(end.bytes);
    if (end.retransmits > 0) this.retransmits.inc(end.retransmits);
  }

  refusedFor(reason: Refusal): void {
    this.refused.inc({ reason });
  }
}
