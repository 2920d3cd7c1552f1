import type { Logger } from 'ogserve';

/**
 * Boot requests refused for load (503: every transfer place taken) or pace (429: too many
 * scripts from one address). A room of PCs retrying a busy file refuses thousands a minute:
 * each is counted, and one line per interval says how many there were and why, never a line
 * (let alone a stack) each.
 */
export class RefusalLog {
  private counts = new Map<string, { count: number; message: string }>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly log: Logger,
    private readonly intervalMs: number,
  ) {}

  /** One refusal: `why` its status and reason (`503 busy`), `message` what it answered. */
  note(why: string, message: string): void {
    const entry = this.counts.get(why);
    if (entry) entry.count++;
    else this.counts.set(why, { count: 1, message });
    this.timer ??= setTimeout(() => this.flush(), this.intervalMs).unref();
  }

  /** The line for what was counted since the last one: at the end of each interval, and on stop. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.counts.size === 0) return;
    const refused = Object.fromEntries([...this.counts].map(([why, { count }]) => [why, count]));
    const total = Object.values(refused).reduce((sum, count) => sum + count, 0);
    const reasons = [...this.counts].map(([why, { count, message }]) => `${count} × ${why} (${message})`);
    this.log.warn({ refused }, `${total} boot request(s) refused in the last ${this.intervalMs / 1000} s: ${reasons.join('; ')}`);
    this.counts = new Map();
  }
}
