import type { EntityManager } from '@mikro-orm/core';
import { type Database, GroupCommit, execute, insertInChunks } from 'ogserve';
import { PowerStateEntity, type PowerStateRow } from './entities/power-state';
import { type RawRow, latestRows, timesAt } from './readings';
import { type PowerState, type StateTimes, noTime } from './states';

/** One PC's change of power state, waiting for the next batch. */
interface Change {
  clientId: number;
  state: PowerState;
  at: number;
  /** Only from this state (a wake's `busy` only from `off`, its end only from `busy`). */
  only?: PowerState;
}

/** What the recorder does with a row written or read: its latest rows and its metrics. */
export interface StateRows {
  /** A row of `state` from `at` for the client, its earlier times `before`, ready to insert in `em`. */
  rowOf(em: EntityManager, clientId: number, state: PowerState, at: number, before: StateTimes): PowerStateRow;
  /** The client's latest row is now `row` (its id 0 when just inserted: the readings need none). */
  latest(clientId: number, row: RawRow): void;
  /** `row` ended at `at`. */
  ended(row: RawRow, at: number): void;
}

const batchSize = 500;

/**
 * Writes PCs' changes of power state, many PCs' in one transaction (core's group commit). A
 * lab switched on brings hundreds of agents within seconds, each changing state twice; one
 * transaction per change (read the PC's open row, insert the new one, end the old) cost more
 * CPU than the agent's whole connection. The recorder hears of each row once its batch committed.
 */
export class StateWrites {
  private readonly commits: GroupCommit<Change, boolean>;

  constructor(
    private readonly db: Database,
    private readonly rows: StateRows,
  ) {
    this.commits = new GroupCommit(db, (em, changes) => this.apply(em, changes), batchSize);
  }

  /**
   * The PC is in `state` from `at`: its open row ends and one in `state` begins (nothing when
   * it is in it already; `only`: only from that state). Resolves with whether it wrote. A PC
   * has one change waiting at most: the recorder writes a PC's changes one after the other.
   */
  write(clientId: number, state: PowerState, at: number, only?: PowerState): Promise<boolean> {
    return this.commits.add({ clientId, state, at, only });
  }

  /** The changes in `em`: whether each wrote. New rows go in before old ones end (the lock order of a client's deletion). */
  private async apply(em: EntityManager, changes: Change[]): Promise<boolean[]> {
    const told: (() => void)[] = [];
    const lasts = await latestRows(
      em,
      changes.map((c) => c.clientId),
    );
    const opening: PowerStateRow[] = [];
    const ending: { row: RawRow; at: number }[] = [];
    const wrote: boolean[] = [];
    for (const c of changes) {
      const last = lasts.get(c.clientId);
      const open = last && last.ended_at === null ? last : undefined;
      const was = open?.state ?? 'off';
      if (was === c.state || (c.only !== undefined && was !== c.only)) {
        if (last) told.push(() => this.rows.latest(c.clientId, last));
        wrote.push(false);
        continue;
      }
      wrote.push(true);
      if (open && Number(open.started_at) >= c.at) {
        // A change within the same millisecond (BSY to OPG at connect): the row takes the new state.
        await em.nativeUpdate(PowerStateEntity, { id: Number(open.id) }, { state: c.state });
        told.push(() => this.rows.latest(c.clientId, { ...open, state: c.state }));
        continue;
      }
      const before = last ? timesAt(last, c.at, c.at) : noTime();
      opening.push(this.rows.rowOf(em, c.clientId, c.state, c.at, before));
      told.push(() => this.rows.latest(c.clientId, rawOf(c.clientId, c.state, c.at, before)));
      if (open) ending.push({ row: open, at: c.at });
    }
    await insertInChunks<PowerStateRow>(em, PowerStateEntity, opening);
    await endRows(em, ending);
    for (const { row, at } of ending) told.push(() => this.rows.ended(row, at));
    this.db.afterCommit(em, () => {
      for (const tell of told) tell();
    });
    return wrote;
  }
}

/** Each row ends at its own time: one statement per chunk, the times by id in a case (integers, written as literals). */
async function endRows(em: EntityManager, ending: { row: RawRow; at: number }[]): Promise<void> {
  for (let i = 0; i < ending.length; i += batchSize) {
    const part = ending.slice(i, i + batchSize);
    const ids = part.map(({ row }) => Math.trunc(Number(row.id)));
    const cases = part.map(({ at }, j) => `when ${ids[j]} then ${Math.trunc(at)}`).join(' ');
    await execute(em, `update power_states set ended_at = case id ${cases} end where id in (${ids.join(', ')})`);
  }
}

/** A row as the readings take it, from what was just written (its id is not read back: the readings need none). */
export function rawOf(clientId: number, state: PowerState, at: number, before: StateTimes): RawRow {
  return {
    id: 0,
    client_id: clientId,
    state,
    started_at: at,
    ended_at: null,
    off_ms: before.off,
    idle_ms: before.idle,
    session_ms: before.session,
    busy_ms: before.busy,
  };
}
