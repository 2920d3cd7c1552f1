import type { EntityManager } from '@mikro-orm/core';
import type { Database } from './database';

/** Writes a batch of items in `em` (in one transaction): each item's answer, in the items' order. */
export type GroupWrite<Item, Answer> = (em: EntityManager, items: Item[]) => Promise<Answer[]>;

interface Waiting<Item, Answer> {
  item: Item;
  done(answer: Answer): void;
  failed(error: unknown): void;
}

/**
 * Write-behind for what many PCs report at once (power states, disk reports): the items that
 * come while a batch is written wait for the next one, and each batch is one transaction (a
 * group commit), so a lab powering on writes in tens of transactions rather than thousands,
 * and a lone item is written at once. A batch that fails is written again item by item: one
 * item's error (its PC deleted meanwhile) loses no other's. What must wait for the commit
 * (in-memory state, events) goes in `db.afterCommit(em, ...)` from `write`.
 */
export class GroupCommit<Item, Answer = void> {
  private queue: Waiting<Item, Answer>[] = [];
  private running = false;

  constructor(
    private readonly db: Database,
    private readonly write: GroupWrite<Item, Answer>,
    private readonly batchSize: number,
  ) {}

  /** Resolves with the item's answer once its batch committed; rejects with its own error only. */
  add(item: Item): Promise<Answer> {
    return new Promise((done, failed) => {
      this.queue.push({ item, done, failed });
      if (this.running) return;
      this.running = true;
      setImmediate(() => void this.drain());
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.batchSize);
      try {
        const answers = await this.written(batch.map((w) => w.item));
        for (const [i, waiting] of batch.entries()) waiting.done(answers[i]!);
      } catch (error) {
        if (batch.length === 1) batch[0]!.failed(error);
        else for (const waiting of batch) await this.written([waiting.item]).then(([answer]) => waiting.done(answer!), waiting.failed);
      }
    }
    this.running = false;
  }

  private written(items: Item[]): Promise<Answer[]> {
    return this.db.transactional((em) => this.write(em, items));
  }
}
