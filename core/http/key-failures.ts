import type { Logger } from '../log';

const windowMs = 60_000;

/**
 * Wrong keys by source address: past `limit` in a minute, the address is refused (429) for a
 * minute without its keys being checked, which makes guessing a key pointless. Logged once
 * per address and window.
 */
export class KeyFailures {
  private readonly failures = new Map<string, { since: number; count: number; blockedUntil: number }>();

  constructor(
    private readonly limit: number,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether any address has failed lately: when none has, no request needs its address looked up. */
  get any(): boolean {
    return this.failures.size > 0;
  }

  /** Seconds until `address` may try again; 0 when it may now. */
  retryAfter(address: string): number {
    const entry = this.failures.get(address);
    if (!entry) return 0;
    const left = entry.blockedUntil - this.now();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  failed(address: string): void {
    if (this.limit === 0) return;
    const now = this.now();
    let entry = this.failures.get(address);
    if (!entry || now - entry.since > windowMs) {
      entry = { since: now, count: 0, blockedUntil: 0 };
      this.failures.set(address, entry);
    }
    entry.count++;
    if (entry.count === this.limit) {
      entry.blockedUntil = now + windowMs;
      this.log.warn({ address, failures: entry.count }, `${entry.count} wrong keys from ${address} within a minute: refused for a minute`);
    }
    this.forgetOld(now);
  }

  /** Bounded memory under a spray of addresses: entries whose window and block are over go. */
  private forgetOld(now: number): void {
    if (this.failures.size < 10_000) return;
    for (const [address, entry] of this.failures)
      if (now - entry.since > windowMs && entry.blockedUntil < now) this.failures.delete(address);
  }
}
