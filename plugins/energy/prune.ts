import type { Database } from 'ogserve';
import { PowerStateEntity } from './entities/power-state';

const dayMs = 24 * 60 * 60 * 1000;

/**
 * Delete the rows that ended more than `days` days before `now`; resolves with how many went.
 * The rows kept still carry the time before them, so a PC's totals need none of those gone.
 */
export async function prunePowerStates(db: Database, days: number, now: number): Promise<number> {
  return db.fork().nativeDelete(PowerStateEntity, { endedAt: { $lt: now - days * dayMs } });
}
