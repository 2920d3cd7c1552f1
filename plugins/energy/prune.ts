import type { EntityManager } from '@mikro-orm/core';
import type { Database } from 'ogserve';
import { PowerDayEntity } from './entities/power-day';
import { PowerStateEntity } from './entities/power-state';
import { UserSessionEntity } from './entities/user-session';

const dayMs = 24 * 60 * 60 * 1000;
const chunk = 500;

/**
 * Delete the rows of these clients that ended more than `days` days before `now`, seeking by
 * client and start; resolves with how many went. The rows kept still carry the time before
 * them, so a PC's totals need none of those gone. Midnight readings and sign-ins older than that go too.
 */
export async function prunePowerStates(
  db: Database,
  clientIds: readonly number[],
  days: number,
  now: number,
  em?: EntityManager,
): Promise<number> {
  const horizon = now - days * dayMs;
  let removed = 0;
  for (let i = 0; i < clientIds.length; i += chunk) {
    removed += await db.unit(em).nativeDelete(PowerStateEntity, {
      client: { $in: clientIds.slice(i, i + chunk) },
      startedAt: { $lt: horizon },
      endedAt: { $lt: horizon },
    });
  }
  await db.unit(em).nativeDelete(UserSessionEntity, { at: { $lt: horizon } });
  await db.unit(em).nativeDelete(PowerDayEntity, { day: { $lt: Math.floor(horizon / dayMs) } });
  return removed;
}
