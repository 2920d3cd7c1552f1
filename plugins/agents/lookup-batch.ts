import type { ClientView, Inventory } from '../inventory';

/**
 * Client lookups by address, batched: after a server restart every agent reconnects within
 * a second, and one `in (...)` query for the addresses that arrived in the same turn of the
 * event loop is far cheaper than one query per connection.
 */
export class LookupBatch {
  private waiting = new Map<string, { resolve(client: ClientView | null): void; reject(error: unknown): void }[]>();
  private scheduled = false;

  constructor(private readonly inventory: Inventory) {}

  clientByIp(ip: string): Promise<ClientView | null> {
    return new Promise((resolve, reject) => {
      this.waiting.set(ip, [...(this.waiting.get(ip) ?? []), { resolve, reject }]);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    const batch = this.waiting;
    this.waiting = new Map();
    this.scheduled = false;
    try {
      const found = new Map((await this.inventory.clientsByIps([...batch.keys()])).map((c) => [c.ip, c]));
      for (const [ip, waiters] of batch) for (const w of waiters) w.resolve(found.get(ip) ?? null);
    } catch (error) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(error);
    }
  }
}
