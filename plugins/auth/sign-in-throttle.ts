import type { Logger } from '../../core/log';

/** Failures within this window count together; an entry is forgotten once it has passed. */
const windowMs = 15 * 60_000;

interface Failures {
  since: number;
  count: number;
  last: number;
  logged: boolean;
}

/**
 * Failed sign-ins by user name and by source address. The first `free` failures cost
 * nothing; each one after makes the next attempt wait twice as long (1 s, 2 s, 4 s ... up
 * to `maxDelayS`), whoever makes it: guessing a password takes years, and a person who
 * mistyped waits seconds. The first slowed attempt of a window is logged once.
 */
export class SignInThrottle {
  private readonly failures = new Map<string, Failures>();

  constructor(
    private readonly free: number,
    private readonly maxDelayS: number,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds before this user or this address may try again; 0 when both may now. */
  retryAfter(username: string, address: string): number {
    return Math.max(this.waitOf(`user ${username.toLowerCase()}`), this.waitOf(`address ${address}`));
  }

  failed(username: string, address: string): void {
    for (const key of [`user ${username.toLowerCase()}`, `address ${address}`]) {
      const now = this.now();
      let entry = this.failures.get(key);
      if (!entry || now - entry.since > windowMs) {
        entry = { since: now, count: 0, last: now, logged: false };
        this.failures.set(key, entry);
      }
      entry.count++;
      entry.last = now;
      if (entry.count > this.free && !entry.logged) {
        entry.logged = true;
        this.log.warn(
          { [key.split(' ')[0]!]: key.slice(key.indexOf(' ') + 1), failures: entry.count },
          `failed sign-ins for ${key}: slowed`,
        );
      }
    }
    this.forgetOld();
  }

  /** A sign-in succeeded: the user's failures are forgotten (the address's are not: it may be guessing other names). */
  succeeded(username: string): void {
    this.failures.delete(`user ${username.toLowerCase()}`);
  }

  private waitOf(key: string): number {
    const entry = this.failures.get(key);
    if (!entry || entry.count <= this.free || this.now() - entry.since > windowMs) return 0;
    const delayMs = Math.min(2 ** (entry.count - this.free - 1), this.maxDelayS) * 1000;
    const left = entry.last + delayMs - this.now();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  /** Bounded memory under a spray of names and addresses. */
  private forgetOld(): void {
    if (this.failures.size < 10_000) return;
    const now = this.now();
    for (const [key, entry] of this.failures) if (now - entry.since > windowMs) this.failures.delete(key);
  }
}
