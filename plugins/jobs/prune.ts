import type { EntityManager } from '@mikro-orm/core';
import type { Database } from 'ogserve';
import { JobClientEntity } from './entities/job-client';
import { JobEntity } from './entities/job';

const dayMs = 24 * 60 * 60 * 1000;
/** Jobs deleted per round: each round's id list stays well under every engine's limit of parameters. */
const batch = 500;

/** Delete the jobs made more than `days` days before `now`, with their clients; resolves with how many went. */
export async function pruneJobs(db: Database, days: number, now: number, given?: EntityManager): Promise<number> {
  let removed = 0;
  for (;;) {
    const old = await db
      .unit(given)
      .find(JobEntity, { createdAt: { $lt: now - days * dayMs } }, { fields: ['id'], limit: batch, orderBy: { id: 'asc' } });
    if (old.length === 0) return removed;
    const ids = old.map((job) => job.id);
    await db.transactional(async (tx) => {
      await tx.nativeDelete(JobClientEntity, { jobId: { $in: ids } });
      await tx.nativeDelete(JobEntity, { id: { $in: ids } });
    }, given);
    removed += ids.length;
  }
}
