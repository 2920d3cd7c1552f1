/**
 * Requests per source address and minute: a PC fetches its script once per boot, so an
 * address asking far more often is a loop or a scan. A fixed window, forgotten whole when it
 * ends, keeps memory to the addresses of one minute.
 */
export class PerAddressLimit {
  private counts = new Map<string, number>();
  private windowEnd = 0;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds to wait when `address` is over the limit, else 0 (and the request is counted). */
  take(address: string): number {
    if (this.perMinute === 0) return 0;
    const now = this.now();
    if (now >= this.windowEnd) {
      this.counts = new Map();
      this.windowEnd = now + 60_000;
    }
    const count = (this.counts.get(address) ?? 0) + 1;
    if (count > this.perMinute) return Math.ceil((this.windowEnd - now) / 1000);
    this.counts.set(address, count);
    return 0;
  }
}
