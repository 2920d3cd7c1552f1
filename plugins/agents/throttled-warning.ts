import type { Logger } from 'ogserve';

/**
 * A warning that can fire thousands of times a second (every refused connection while the
 * descriptors are exhausted): the first occurrence is logged at once, later ones are
 * counted and logged as one line at the end of each interval, so the log says the
 * condition once per interval rather than once per attempt.
 */
export class ThrottledWarning {
  private suppressed = 0;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly log: Logger,
    private readonly intervalMs: number,
    private readonly message: (count: number) => string,
  ) {}

  hit(): void {
    if (this.timer) {
      this.suppressed++;
      return;
    }
    this.log.warn({ count: 1 }, this.message(1));
    this.arm();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    this.timer = setTimeout(() => this.flush(), this.intervalMs);
    this.timer.unref();
  }

  private flush(): void {
    this.timer = undefined;
    if (this.suppressed === 0) return;
    const count = this.suppressed;
    this.suppressed = 0;
    this.log.warn({ count }, this.message(count));
    // Still happening: the next occurrences wait for the following interval.
    this.arm();
  }
}

/** Addresses followed one by one in an interval; past this many, the rest are summed up together. */
const maxAddresses = 100;

/**
 * A warning about what one address does (connecting without being a client, sending events
 * that make no sense), which that address can repeat as fast as it likes: its first
 * occurrence in an interval is logged at once with its detail, the others are counted and
 * logged as one line per address at the end of the interval. Past `maxAddresses` addresses
 * in one interval, further addresses share one summary line, so a scan of a whole network
 * cannot flood the log either.
 */
export class ThrottledPerAddress {
  private readonly suppressed = new Map<string, number>();
  private others = { addresses: new Set<string>(), count: 0 };
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly log: Logger,
    private readonly intervalMs: number,
    /** The summary line of `count` occurrences not logged one by one. */
    private readonly summary: (count: number, seconds: number) => string,
  ) {}

  hit(ip: string, message: string, fields: Record<string, unknown> = {}): void {
    const count = this.suppressed.get(ip);
    if (count !== undefined) {
      this.suppressed.set(ip, count + 1);
      return;
    }
    if (this.suppressed.size >= maxAddresses) {
      this.others.addresses.add(ip);
      this.others.count++;
      return;
    }
    this.suppressed.set(ip, 0);
    this.log.warn({ ...fields, ip, count: 1 }, message);
    this.timer ??= setTimeout(() => this.flush(), this.intervalMs).unref();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private flush(): void {
    this.timer = undefined;
    const seconds = this.intervalMs / 1000;
    for (const [ip, count] of this.suppressed) {
      if (count === 0) {
        // Quiet for a whole interval: its next occurrence is logged at once again.
        this.suppressed.delete(ip);
        continue;
      }
      this.log.warn({ ip, count }, this.summary(count, seconds));
      this.suppressed.set(ip, 0);
    }
    if (this.others.count > 0) {
      const { addresses, count } = this.others;
      this.log.warn({ addresses: addresses.size, count }, `${this.summary(count, seconds)} from ${addresses.size} more address(es)`);
      this.others = { addresses: new Set(), count: 0 };
    }
    if (this.suppressed.size > 0) this.timer = setTimeout(() => this.flush(), this.intervalMs).unref();
  }
}
