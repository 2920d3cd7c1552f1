import type { EntityManager } from '@mikro-orm/core';
import { type Database, execute } from 'ogserve';
import { type PowerState, type StateTimes, noTime } from './states';

/** A row as the readings need it (SQL names, numbers as the drivers give them). */
export interface RawRow {
  id: number | string;
  client_id: number | string;
  state: PowerState;
  started_at: number | string;
  ended_at: number | string | null;
  off_ms: number | string;
  idle_ms: number | string;
  session_ms: number | string;
  busy_ms: number | string;
}

const columns = 'p.id, p.client_id, p.state, p.started_at, p.ended_at, p.off_ms, p.idle_ms, p.session_ms, p.busy_ms';
const chunk = 500;
const dayMs = 86_400_000;

/**
 * The time a row's PC had spent in each state by `at`: what it had before the row, plus the
 * row's own state from its start to `at` (or to its end, or to `now` while it lasts). A row
 * that begins after `at` counts only what came before it.
 */
export function timesAt(row: RawRow, at: number, now: number): StateTimes {
  const times = { off: Number(row.off_ms), idle: Number(row.idle_ms), session: Number(row.session_ms), busy: Number(row.busy_ms) };
  const end = Math.min(at, row.ended_at === null ? now : Number(row.ended_at));
  times[row.state] += Math.max(0, end - Number(row.started_at));
  return times;
}

/** The PC's latest row (its state now when it has no end), read in `em`. */
export async function latestRow(em: EntityManager, clientId: number): Promise<RawRow | undefined> {
  const [row] = await execute<RawRow>(
    em,
    `select ${columns} from power_states p where p.client_id = ? order by p.started_at desc, p.id desc limit 1`,
    [clientId],
  );
  return row;
}

/** Each PC's latest row (of those that have one), read in `em`: one index seek per PC. */
export async function latestRows(em: EntityManager, clientIds: readonly number[]): Promise<Map<number, RawRow>> {
  const found = new Map<number, RawRow>();
  for (let i = 0; i < clientIds.length; i += chunk) {
    const rows = await execute<RawRow>(
      em,
      `select ${columns} from (${idTable(clientIds.slice(i, i + chunk))}) c join power_states p on p.id =
         (select b.id from power_states b where b.client_id = c.client_id order by b.started_at desc, b.id desc limit 1)`,
    );
    for (const row of rows) found.set(Number(row.client_id), row);
  }
  return found;
}

/**
 * A literal table of client ids: a union of selects, which every engine takes. The ids are
 * the inventory's own integers, written as literals so that each engine types them as such.
 */
function idTable(ids: readonly number[]): string {
  return ids.map((id) => `select ${Math.trunc(Number(id))} as client_id`).join(' union all ');
}

/**
 * For each of `clientIds`, the row that tells its times at `at`: the last that began by then,
 * or, for a PC whose rows all begin later (its first, or the oldest kept), the first. One index
 * seek per PC, whatever its number of rows.
 */
export async function rowsAt(db: Database, clientIds: readonly number[], at: number): Promise<Map<number, RawRow>> {
  const found = new Map<number, RawRow>();
  for (let i = 0; i < clientIds.length; i += chunk) {
    const ids = clientIds.slice(i, i + chunk);
    const rows = await db.query<RawRow>(
      `select ${columns} from (${idTable(ids)}) c join power_states p on p.id = coalesce(
         (select b.id from power_states b where b.client_id = c.client_id and b.started_at <= ? order by b.started_at desc, b.id desc limit 1),
         (select a.id from power_states a where a.client_id = c.client_id order by a.started_at, a.id limit 1))`,
      [at],
    );
    for (const row of rows) found.set(Number(row.client_id), row);
  }
  return found;
}

/** Each PC's times in each state at `at` (PCs without rows are left out). */
export async function timesOf(db: Database, clientIds: readonly number[], at: number, now: number): Promise<Map<number, StateTimes>> {
  const times = new Map<number, StateTimes>();
  for (const [id, row] of await rowsAt(db, clientIds, at)) times.set(id, timesAt(row, at, now));
  return times;
}

/** `later` minus `earlier`, state by state: the time in each state between two readings. */
export function between(earlier: StateTimes | undefined, later: StateTimes | undefined): StateTimes {
  const times = noTime();
  if (!later) return times;
  for (const state of Object.keys(times) as PowerState[]) times[state] = later[state] - (earlier?.[state] ?? 0);
  return times;
}

/**
 * Where a report's readings come from: at now, the recorder's latest rows (when it alone
 * writes them); at a UTC midnight, that day's written reading; else a seek per PC.
 */
export class Readings {
  constructor(
    private readonly db: Database,
    private readonly latest: () => ReadonlyMap<number, RawRow> | undefined,
    private readonly day: (day: number, clientIds: readonly number[]) => Promise<Map<number, StateTimes> | undefined>,
  ) {}

  /** Each PC's times in each state at `at` (PCs without rows are left out). */
  async at(clientIds: readonly number[], at: number, now: number): Promise<Map<number, StateTimes>> {
    if (at >= now) {
      const times = new Map<number, StateTimes>();
      for (const [id, row] of await this.rowsNow(clientIds, now)) times.set(id, timesAt(row, now, now));
      return times;
    }
    if (at % dayMs === 0) {
      const written = await this.day(at / dayMs, clientIds);
      if (written) return written;
    }
    return timesOf(this.db, clientIds, at, now);
  }

  /**
   * When each PC's very first row begins (the row with no time before it): the time before it
   * is no time of that PC's (it did not exist, or was not followed yet), not time unrecorded.
   * PCs without rows, and those whose first row went with the retention, are left out.
   */
  async firstSeen(clientIds: readonly number[]): Promise<Map<number, number>> {
    const found = new Map<number, number>();
    for (let i = 0; i < clientIds.length; i += chunk) {
      const rows = await this.db.query<{ client_id: number | string; first: number | string }>(
        `select c.client_id, (select min(p.started_at) from power_states p where p.client_id = c.client_id
           and p.off_ms = 0 and p.idle_ms = 0 and p.session_ms = 0 and p.busy_ms = 0) as first
         from (${idTable(clientIds.slice(i, i + chunk))}) c`,
      );
      for (const row of rows) if (row.first !== null) found.set(Number(row.client_id), Number(row.first));
    }
    return found;
  }

  /** Each PC's latest row (its state now when it has no end). */
  async rowsNow(clientIds: readonly number[], now: number): Promise<Map<number, RawRow>> {
    const latest = this.latest();
    if (!latest) return rowsAt(this.db, clientIds, now);
    const found = new Map<number, RawRow>();
    const unknown: number[] = [];
    for (const id of clientIds) {
      const row = latest.get(id);
      if (row) found.set(id, row);
      else unknown.push(id);
    }
    for (const [id, row] of await rowsAt(this.db, unknown, now)) found.set(id, row);
    return found;
  }
}
