import { type Clock, type Database, type Logger, insertInChunks } from 'ogserve';
import type { Inventory } from '../inventory';
import { UserSessionEntity, type UserSessionRow } from './entities/user-session';

interface Pending {
  clientId: number;
  action: 'start' | 'stop';
  user: string;
  os: string;
  at: number;
}

/**
 * Keeps the sign-ins and sign-outs agents report, many PCs' in one transaction: a lab's
 * users signing in at the start of a class come within seconds, and one commit each would
 * cost a disk flush each. Events that come while a batch is written wait for the next one,
 * so a lone sign-in is written at once (stamped when it came, not when written).
 */
export class SessionLog {
  private queue: Pending[] = [];
  private writing: Promise<void> | undefined;

  constructor(
    private readonly db: Database,
    private readonly inventory: Pick<Inventory, 'clientByIp' | 'clientRef'>,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  async record(ip: string, action: 'start' | 'stop', user: string, os: string): Promise<void> {
    const at = this.clock.now();
    const client = await this.inventory.clientByIp(ip);
    if (!client) return;
    this.queue.push({ clientId: client.id, action, user, os, at });
    if (!this.writing) this.writing = new Promise((done) => setImmediate(() => void this.drain().finally(done)));
  }

  /** Resolves once what was queued before the call is written (the stop waits for it). */
  async flushed(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, 500);
      try {
        await this.db.transactional((em) =>
          insertInChunks<UserSessionRow>(
            em,
            UserSessionEntity,
            batch.map((p) => ({ client: this.inventory.clientRef(em, p.clientId), action: p.action, user: p.user, os: p.os, at: p.at })),
          ),
        );
      } catch (error) {
        // A PC deleted meanwhile fails its batch: the others are written one by one.
        for (const p of batch) {
          await this.db
            .transactional((em) =>
              em.insert(UserSessionEntity, {
                client: this.inventory.clientRef(em, p.clientId),
                action: p.action,
                user: p.user,
                os: p.os,
                at: p.at,
              }),
            )
            .catch((one: unknown) =>
              this.log.warn({ err: one, client: p.clientId, batch: (error as Error).message }, 'sign-in not recorded'),
            );
        }
      }
    }
    this.writing = undefined;
  }
}
