import { type Database, insertInChunks } from 'ogserve';
import type { Inventory } from '../inventory';
import { type PowerDay, PowerDayEntity } from './entities/power-day';
import { timesOf } from './readings';
import type { StateTimes } from './states';

export const dayMs = 86_400_000;

/**
 * Today's midnight reading of every PC, unless it is written already: one seek per PC, once a
 * day (a day the server was down is not written after: its readings seek). Resolves with the
 * rows written.
 */
export async function writeToday(db: Database, inventory: Inventory, now: number): Promise<number> {
  const day = Math.floor(now / dayMs);
  const [written] = await db.query<{ n: number | string }>('select count(*) as n from power_days where day = ?', [day]);
  if (Number(written!.n) > 0) return 0;
  const ids = [...(await inventory.allClients())].map((c) => c.id);
  const times = await timesOf(db, ids, day * dayMs, now);
  await db.transactional((em) =>
    insertInChunks<PowerDay>(
      em,
      PowerDayEntity,
      [...times].map(
        ([id, t]) =>
          ({
            client: inventory.clientRef(em, id),
            day,
            offMs: t.off,
            idleMs: t.idle,
            sessionMs: t.session,
            busyMs: t.busy,
          }) as PowerDay,
      ),
    ),
  );
  return times.size;
}

/**
 * The midnight reading of `day` (days since 1970) of these PCs, or undefined when none was
 * written. A few PCs (a room) are looked up by id; more, the whole day is read.
 */
export async function dayReading(db: Database, day: number, clientIds: readonly number[]): Promise<Map<number, StateTimes> | undefined> {
  const few = clientIds.length <= 500;
  const rows = await db.query<Record<string, number | string>>(
    `select client_id, off_ms, idle_ms, session_ms, busy_ms from power_days where day = ?${few ? ` and client_id in (${clientIds.map(() => '?').join(', ') || 'null'})` : ''}`,
    few ? [day, ...clientIds] : [day],
  );
  if (rows.length === 0) return undefined;
  return new Map(
    rows.map((r) => [
      Number(r.client_id),
      { off: Number(r.off_ms), idle: Number(r.idle_ms), session: Number(r.session_ms), busy: Number(r.busy_ms) },
    ]),
  );
}
