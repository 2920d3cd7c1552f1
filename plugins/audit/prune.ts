import type { Database } from 'ogserve';
import { AuditEntryEntity } from './entities/entry';

const dayMs = 24 * 60 * 60 * 1000;

/** Delete the entries older than `days` days before `now`; resolves with how many went. */
export async function pruneEntries(db: Database, days: number, now: number): Promise<number> {
  return db.fork().nativeDelete(AuditEntryEntity, { at: { $lt: String(now - days * dayMs) } });
}
