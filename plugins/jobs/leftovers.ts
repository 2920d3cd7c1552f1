import type { Database } from 'ogserve';
import { JobClientEntity } from './entities/job-client';
import { JobEntity } from './entities/job';

export const leftoverOutcome = 'the server stopped before the agent answered';

/**
 * Clients a stopped run left `sent` can get no answer now: failed, and their jobs finished.
 * Only for an instance alone, since of several each follows the jobs it sent.
 */
export async function endLeftovers(db: Database, now: number): Promise<number> {
  return db.transactional(async (em) => {
    const ended = await em.nativeUpdate(JobClientEntity, { state: 'sent' }, { state: 'failed', outcome: leftoverOutcome, endedAt: now });
    await em.nativeUpdate(JobEntity, { finishedAt: null }, { finishedAt: now });
    return ended;
  });
}
