import { randomBytes } from 'node:crypto';
import { type Access, inject, injectable, PluginConfig } from 'ogserve';

/**
 * Single-use, short-lived tickets that stand for the API key in GET /events?ticket=: a
 * browser's EventSource cannot send an Authorization header, and the key must not travel
 * in a URL (it would land in proxy and server logs).
 */
@injectable()
export class Tickets {
  /** Each ticket's expiry and the access of the key that took it (a limited token stays limited). */
  private readonly issued = new Map<string, { expires: number; access: Access }>();

  private readonly ttlMs: number;
  private readonly now: () => number = Date.now;

  constructor(@inject(PluginConfig) config: { ticket_ttl_s: number }) {
    this.ttlMs = config.ticket_ttl_s * 1000;
  }

  issue(access: Access): { ticket: string; expires_in: number } {
    this.prune();
    const ticket = randomBytes(24).toString('base64url');
    this.issued.set(ticket, { expires: this.now() + this.ttlMs, access });
    return { ticket, expires_in: this.ttlMs / 1000 };
  }

  /** The access the ticket stands for, once per ticket, before it expires. */
  redeem(ticket: string): Access | undefined {
    const found = this.issued.get(ticket);
    if (!found) return undefined;
    this.issued.delete(ticket);
    return found.expires > this.now() ? found.access : undefined;
  }

  private prune(): void {
    const now = this.now();
    for (const [ticket, { expires }] of this.issued) if (expires <= now) this.issued.delete(ticket);
  }
}
