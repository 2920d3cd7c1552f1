import type { EntityManager } from '@mikro-orm/core';
import type { Database } from 'ogserve';
import { AuditEntryEntity } from './entities/entry';

const dayMs = 24 * 60 * 60 * 1000;

/** Delete the entries older than `days` days before `now`; resolves with how many went. */
export async function pruneEntries(db: Database, days: number, now: number, em?: EntityManager): Promise<number> {
  return db.unit(em).nativeDelete(AuditEntryEntity, { at: { $lt: String(now - days * dayMs) } });
}
