import { SystemClock, type Clock, inject, injectable, PluginConfig } from 'ogserve';
import { WolClock } from './clock';
import type { WolSettings } from './schemas';

/**
 * Clients woken but not yet connected (state WOL_SENT), by IP, oldest first. Each entry
 * lives `pending_timeout_s` on `clock` unless released earlier (its agent connected, or the client
 * was removed).
 *
 * One timer serves every entry: a POST /wol marks thousands at once, and a timer each made
 * the first one slow. It is armed for the earliest expiry; when it fires it drops what is due
 * and arms for the next. Marking again or releasing does not move it: it may fire with
 * nothing due and then simply re-arms.
 */
@injectable()
export class PendingWakes {
  /** Each entry's expiry (ms on `clock`), by IP, in marking order. */
  private readonly expiries = new Map<string, number>();
  /** The armed timer: when it fires, and its cancel function. */
  private timer: { at: number; cancel: () => void } | undefined;

  private readonly lifetimeMs: number;

  constructor(
    @inject(PluginConfig) config: Pick<WolSettings, 'pending_timeout_s'>,
    @inject(WolClock) private readonly clock: Clock = new SystemClock(),
  ) {
    this.lifetimeMs = config.pending_timeout_s * 1000;
  }

  /** Add an entry, or restart the lifetime of an existing one (it keeps its place). */
  mark(ip: string): void {
    const at = this.clock.now() + this.lifetimeMs;
    this.expiries.set(ip, at);
    if (!this.timer || at < this.timer.at) this.arm(at);
  }

  release(ip: string): boolean {
    if (!this.expiries.delete(ip)) return false;
    if (this.expiries.size === 0) this.disarm();
    return true;
  }

  has(ip: string): boolean {
    return this.expiries.has(ip);
  }

  ips(): IterableIterator<string> {
    return this.expiries.keys();
  }

  clear(): void {
    this.disarm();
    this.expiries.clear();
  }

  private arm(at: number): void {
    this.disarm();
    const cancel = this.clock.setTimer(at, () => {
      this.timer = undefined;
      // What the timer was armed for is due even if the clock reads a little earlier (setTimeout
      // counts on its own clock, not Date.now()).
      this.expire(Math.max(at, this.clock.now()));
    });
    this.timer = { at, cancel };
  }

  private disarm(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** Drop the entries due by `now` and arm for the earliest left, in one pass over the entries. */
  private expire(now: number): void {
    let next = Number.POSITIVE_INFINITY;
    for (const [ip, at] of this.expiries) {
      if (at <= now) this.expiries.delete(ip);
      else if (at < next) next = at;
    }
    if (next !== Number.POSITIVE_INFINITY && (!this.timer || next < this.timer.at)) this.arm(next);
  }
}
