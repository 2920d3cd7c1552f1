import { SystemClock, type Clock } from '../../core/clock';

/**
 * Clients woken but not yet connected (state WOL_SENT), by IP, oldest first. Each entry
 * lives `lifetimeMs` on `clock` unless released earlier (its agent connected, or the client
 * was removed).
 */
export class PendingWakes {
  /** Each entry's expiry timer, by IP, as the function that cancels it. */
  private readonly expiries = new Map<string, () => void>();

  constructor(
    private readonly lifetimeMs: number,
    private readonly clock: Clock = new SystemClock(),
  ) {}

  /** Add an entry, or restart the lifetime of an existing one (it keeps its place). */
  mark(ip: string): void {
    this.expiries.get(ip)?.();
    this.expiries.set(
      ip,
      this.clock.setTimer(this.clock.now() + this.lifetimeMs, () => {
        this.expiries.delete(ip);
      }),
    );
  }

  release(ip: string): boolean {
    const cancel = this.expiries.get(ip);
    if (!cancel) return false;
    cancel();
    return this.expiries.delete(ip);
  }

  has(ip: string): boolean {
    return this.expiries.has(ip);
  }

  ips(): IterableIterator<string> {
    return this.expiries.keys();
  }

  clear(): void {
    for (const cancel of this.expiries.values()) cancel();
    this.expiries.clear();
  }
}
