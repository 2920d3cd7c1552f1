/**
 * Clients woken but not yet connected (state WOL_SENT), by IP, oldest first. Each entry
 * lives `lifetimeMs` unless released earlier (its agent connected, or the client was removed).
 */
export class PendingWakes {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly lifetimeMs: number) {}

  /** Add an entry, or restart the lifetime of an existing one (it keeps its place). */
  mark(ip: string): void {
    const previous = this.timers.get(ip);
    if (previous) clearTimeout(previous);
    const timer = setTimeout(() => this.timers.delete(ip), this.lifetimeMs);
    timer.unref();
    this.timers.set(ip, timer);
  }

  release(ip: string): boolean {
    const timer = this.timers.get(ip);
    if (!timer) return false;
    clearTimeout(timer);
    return this.timers.delete(ip);
  }

  has(ip: string): boolean {
    return this.timers.has(ip);
  }

  ips(): IterableIterator<string> {
    return this.timers.keys();
  }

  clear(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
