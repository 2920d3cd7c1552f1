import type { EntityManager } from '@mikro-orm/core';
import { createHash, randomBytes } from 'node:crypto';
import { type Clock, Database, inject, injectable } from 'ogserve';
import { AuthClock } from './clock';
import { PendingSignInEntity } from './entities/pending-sign-in';

/** How long a person has at the provider before the sign-in must start again. */
export const pendingLifetimeMs = 10 * 60_000;

export interface Pending {
  provider: string;
  state: string;
  nonce: string;
  verifier: string;
}

const hashOf = (secret: string): string => createHash('sha256').update(secret).digest('hex');
const random = (): string => randomBytes(32).toString('base64url');

/**
 * Sign-ins waiting for an OpenID provider's answer, by the secret of the browser's cookie:
 * only the browser that began a sign-in can finish it, once.
 */
@injectable()
export class PendingSignIns {
  private readonly now: () => number;

  constructor(
    @inject(Database) private readonly db: Database,
    @inject(AuthClock) clock: Clock,
  ) {
    this.now = () => clock.now();
  }

  /** A new one; `secret` goes in the browser's cookie. PKCE's verifier is 43 characters of randomness, as RFC 7636 asks. */
  async begin(provider: string, given?: EntityManager): Promise<{ secret: string; pending: Pending }> {
    const secret = random();
    const pending = { provider, state: random(), nonce: random(), verifier: random() };
    const em = this.db.unit(given);
    em.create(PendingSignInEntity, { hash: hashOf(secret), ...pending, createdAt: String(this.now()) });
    await em.flush();
    return { secret, pending };
  }

  /** The sign-in of this cookie, taken (it cannot be used again); undefined when unknown, used or too old. */
  async take(secret: string, provider: string, given?: EntityManager): Promise<Pending | undefined> {
    const em = this.db.unit(given);
    const row = await em.findOne(PendingSignInEntity, { hash: hashOf(secret) });
    if (!row) return undefined;
    // Deleted by whoever gets there first: a second callback with the same cookie finds nothing.
    const taken = await em.nativeDelete(PendingSignInEntity, { id: row.id });
    if (taken === 0 || row.provider !== provider || this.now() - Number(row.createdAt) > pendingLifetimeMs) return undefined;
    return { provider: row.provider, state: row.state, nonce: row.nonce, verifier: row.verifier };
  }

  /** Remove those whose time is up. */
  async prune(em?: EntityManager): Promise<void> {
    await this.db.unit(em).nativeDelete(PendingSignInEntity, { createdAt: { $lt: String(this.now() - pendingLifetimeMs) } });
  }
}
