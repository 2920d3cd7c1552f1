import type { Logger } from '../../core/log';

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
