/**
 * So many per key (a network) and minute, in a fixed window forgotten whole when it ends:
 * memory holds the keys of one minute.
 */
export class PerMinute {
  private counts = new Map<string, number>();
  private windowEnd = 0;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number,
  ) {}

  /** Whether one more is allowed for `key` (it is then counted). */
  take(key: string): boolean {
    const now = this.now();
    if (now >= this.windowEnd) {
      this.counts = new Map();
      this.windowEnd = now + 60_000;
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    if (count > this.perMinute) return false;
    this.counts.set(key, count);
    return true;
  }
}

/** The /24 an address is in, for a PC discovered where one setting covers every network. */
export function slash24(ip: string): string {
  return `${ip.split('.').slice(0, 3).join('.')}.0/24`;
}
