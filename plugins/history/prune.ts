import type { EntityManager } from '@mikro-orm/core';
import type { Database } from 'ogserve';
import { HistoryChangeEntity } from './entities/change';

const dayMs = 24 * 60 * 60 * 1000;

/** Delete the changes older than `days` days before `now`; resolves with how many went. */
export async function pruneChanges(db: Database, days: number, now: number, em?: EntityManager): Promise<number> {
  return db.unit(em).nativeDelete(HistoryChangeEntity, { at: { $lt: String(now - days * dayMs) } });
}
