import { randomBytes } from 'node:crypto';

/**
 * Single-use, short-lived tickets that stand for the API key in GET /events?ticket=: a
 * browser's EventSource cannot send an Authorization header, and the key must not travel
 * in a URL (it would land in proxy and server logs).
 */
export class Tickets {
  private readonly expiries = new Map<string, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  issue(): { ticket: string; expires_in: number } {
    this.prune();
    const ticket = randomBytes(24).toString('base64url');
    this.expiries.set(ticket, this.now() + this.ttlMs);
    return { ticket, expires_in: this.ttlMs / 1000 };
  }

  /** True once per ticket, before it expires. */
  redeem(ticket: string): boolean {
    const expires = this.expiries.get(ticket);
    if (expires === undefined) return false;
    this.expiries.delete(ticket);
    return expires > this.now();
  }

  private prune(): void {
    const now = this.now();
    for (const [ticket, expires] of this.expiries) if (expires <= now) this.expiries.delete(ticket);
  }
}
