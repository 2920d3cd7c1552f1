import { type Clock, inject, injectable, type Logger, PluginConfig, PluginLog } from 'ogserve';
import { AuthClock } from './clock';
import { signInName } from './sign-in-name';

/** Failures within this window count together; an entry is forgotten once it has passed. */
const windowMs = 15 * 60_000;

interface Failures {
  since: number;
  count: number;
  last: number;
  logged: boolean;
}

/**
 * Sign-in attempts by user name and by source address. The first `free` attempts that fail
 * cost nothing; each one after makes the next attempt wait twice as long (1 s, 2 s, 4 s ...
 * up to `maxDelayS`), whoever makes it: guessing a password takes years, and a person who
 * mistyped waits seconds. An attempt counts from the moment it begins, so that fifty at
 * once do not all pass before the first has failed; one that turns out not to be a guess
 * (the right password, the directory down) is taken back. The first slowed attempt of a
 * window is logged once.
 */
@injectable()
export class SignInThrottle {
  private readonly failures = new Map<string, Failures>();

  private readonly free: number;
  private readonly maxDelayS: number;
  private readonly now: () => number;

  constructor(
    @inject(PluginConfig) config: { free_failures: number; max_delay_s: number },
    @inject(PluginLog) private readonly log: Logger,
    @inject(AuthClock) clock: Clock,
  ) {
    this.free = config.free_failures;
    this.maxDelayS = config.max_delay_s;
    this.now = () => clock.now();
  }

  /** Seconds before this user or this address may try again; 0 when both may now. */
  retryAfter(username: string, address: string): number {
    return Math.max(...keysOf(username, address).map((key) => this.waitOf(key)));
  }

  /** An attempt begins: it counts as a failure until `cleared` or `forgiven`. */
  began(username: string, address: string): void {
    const now = this.now();
    for (const key of keysOf(username, address)) {
      let entry = this.failures.get(key);
      if (!entry || now - entry.since > windowMs) {
        entry = { since: now, count: 0, last: now, logged: false };
        this.failures.set(key, entry);
      }
      entry.count++;
      entry.last = now;
      if (entry.count > this.free && !entry.logged) {
        entry.logged = true;
        const [kind, value] = [key.slice(0, key.indexOf(' ')), key.slice(key.indexOf(' ') + 1)];
        this.log.warn({ [kind]: value, failures: entry.count }, `failed sign-ins for ${key}: slowed`);
      }
    }
    this.forgetOld(now);
  }

  /** The attempt was not a guess (the directory did not answer, the account is disabled): it does not count. */
  forgiven(username: string, address: string): void {
    for (const key of keysOf(username, address)) {
      const entry = this.failures.get(key);
      if (entry && entry.count > 0) entry.count--;
    }
  }

  /** The password was right: the user's failures are forgotten (the address's stay: it may be guessing other names). */
  cleared(username: string, address: string): void {
    this.forgiven(username, address);
    this.failures.delete(keysOf(username, address)[0]!);
  }

  private waitOf(key: string): number {
    const entry = this.failures.get(key);
    if (!entry || entry.count <= this.free || this.now() - entry.since > windowMs) return 0;
    const delayMs = Math.min(2 ** (entry.count - this.free - 1), this.maxDelayS) * 1000;
    const left = entry.last + delayMs - this.now();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  /** Bounded memory under a spray of names and addresses. */
  private forgetOld(now: number): void {
    if (this.failures.size < 10_000) return;
    for (const [key, entry] of this.failures) if (now - entry.since > windowMs) this.failures.delete(key);
  }
}

/** Every spelling of one name counts as that name: `alice ` is not a fresh one. */
function keysOf(username: string, address: string): [string, string] {
  return [`user ${signInName(username)}`, `address ${address}`];
}
