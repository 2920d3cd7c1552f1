import type { EntityManager } from '@mikro-orm/core';
import { type Clock, type Database, type Logger, insertInChunks } from 'ogserve';
import type { Inventory } from '../inventory';
import { PowerStateEntity, type PowerStateRow } from './entities/power-state';
import type { EnergyMetrics } from './metrics';
import { type RawRow, latestRow, rowsAt, timesAt } from './readings';
import { StateWrites, rawOf } from './state-writes';
import { type PowerState, type StateTimes, noTime } from './states';

const chunk = 500;

/**
 * Keeps each PC's power states as rows: a change closes the PC's open row and opens one in
 * the new state, carrying the time spent in each state so far. A PC's writes run one after
 * the other, in the order its changes came, and only once the start's catch-up is done.
 */
export class PowerRecorder {
  /** Each PC's latest row as this instance last wrote or read it: the gauge, and alone the reading at now. */
  private readonly latest = new Map<number, RawRow>();
  private caughtUp = false;
  private readonly turns = new Map<number, Promise<void>>();
  /** PCs booting after a wake-on-LAN packet, with what ends that if their agent never connects. */
  private readonly waking = new Map<number, () => void>();
  private ready: Promise<void> = Promise.resolve();
  /** Whether the app started (the command line opens it without starting: nothing is written then). */
  private started = false;
  private stopped = false;
  private readonly writes: StateWrites;

  constructor(
    private readonly db: Database,
    private readonly inventory: Inventory,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly metrics: EnergyMetrics,
    /** Another instance shares the database: open rows may be its PCs'. */
    private readonly shared: boolean,
    private readonly wakeWindowMs: number,
  ) {
    this.writes = new StateWrites(db, {
      rowOf: (em, clientId, state, at, before) => this.rowOf(em, clientId, state, at, before),
      latest: (clientId, row) => this.latest.set(clientId, row),
      ended: (row, at) => this.metrics.ended(row.state, at - Number(row.started_at)),
    });
  }

  /**
   * At start, every PC gets an open row: `off` until its agent connects. Alone, a row left open
   * (a crash: no stop closed it) ends now, and an open `off` goes on; with other instances,
   * only PCs without an open row get one.
   */
  start(): Promise<void> {
    this.started = true;
    this.ready = this.catchUp().catch((error: unknown) => this.log.error({ err: error }, 'power states not opened at start'));
    return this.ready;
  }

  /** Each PC's state now, as this instance knows it (the metrics' gauge). */
  *states(): Iterable<PowerState> {
    for (const row of this.latest.values()) yield row.ended_at === null ? row.state : 'off';
  }

  /**
   * Each PC's latest row, when this instance alone writes them and has read them all since it
   * started: a report up to now reads it instead of seeking each PC's row.
   */
  latestRows(): ReadonlyMap<number, RawRow> | undefined {
    return !this.shared && this.caughtUp && !this.stopped ? this.latest : undefined;
  }

  /** Alone, every open row ends now, so the time the server is down counts in no state (once started). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const cancel of this.waking.values()) cancel();
    this.waking.clear();
    await this.ready;
    await Promise.all(this.turns.values());
    if (this.shared || !this.started) return;
    const now = this.clock.now();
    const ids = [...(await this.inventory.allClients())].map((c) => c.id);
    const open = [...(await rowsAt(this.db, ids, now)).values()].filter((row) => row.ended_at === null).map((row) => Number(row.id));
    await this.db.transactional(async (em) => {
      for (let i = 0; i < open.length; i += chunk)
        await em.nativeUpdate(PowerStateEntity, { id: { $in: open.slice(i, i + chunk) } }, { endedAt: now });
    });
  }

  /** A PC's shown state changed (the agents' `client.state`), in its power state. */
  changed(ip: string, state: PowerState): Promise<void> {
    // Stamped when it happened: the PC's earlier writes may hold its turn a while.
    const at = this.clock.now();
    return this.inTurn(ip, (id) => {
      this.waking.get(id)?.();
      this.waking.delete(id);
      return this.writes.write(id, state, at);
    });
  }

  /**
   * Wake-on-LAN packets left for a PC: one that is off is booting (`busy`) from now until its
   * agent connects; if none has after the wake window, it is off again from then.
   */
  woken(ip: string): Promise<void> {
    const at = this.clock.now();
    return this.inTurn(ip, async (id) => {
      if (this.waking.has(id) || !(await this.writes.write(id, 'busy', at, 'off'))) return;
      const cancel = this.clock.setTimer(this.clock.now() + this.wakeWindowMs, () => {
        if (this.waking.get(id) !== cancel) return;
        this.waking.delete(id);
        return this.inTurn(ip, (sameId) => this.writes.write(sameId, 'off', this.clock.now(), 'busy').then(() => undefined));
      });
      this.waking.set(id, cancel);
    });
  }

  /** A client added (or saved): off until its agent connects, unless it already has an open row. */
  added(clientId: number): Promise<void> {
    return this.turn(clientId, async () => {
      await this.db.transactional(async (em) => {
        const last = await latestRow(em, clientId);
        if (last && last.ended_at === null) return;
        await this.open(em, clientId, 'off', this.clock.now(), last);
      });
    });
  }

  /** A client removed, or its address changed (the same id): once its rows are gone (deleted with it), it is not counted. */
  removed(clientId: number): Promise<void> {
    return this.turn(clientId, async () => {
      const [row] = await this.db.query('select id from power_states where client_id = ? limit 1', [clientId]);
      if (!row) this.latest.delete(clientId);
    });
  }

  private inTurn(ip: string, fn: (clientId: number) => Promise<unknown>): Promise<void> {
    return this.inventory.clientByIp(ip).then((client) => {
      if (client) return this.turn(client.id, () => fn(client.id));
    });
  }

  private turn(clientId: number, fn: () => Promise<unknown>): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const turn = (this.turns.get(clientId) ?? this.ready)
      .then(async () => {
        if (!this.stopped) await fn();
      })
      .catch((error: unknown) => this.log.warn({ err: error, client: clientId }, 'power state not recorded'));
    this.turns.set(clientId, turn);
    void turn.finally(() => {
      if (this.turns.get(clientId) === turn) this.turns.delete(clientId);
    });
    return turn;
  }

  private async open(em: EntityManager, clientId: number, state: PowerState, at: number, last: RawRow | undefined): Promise<void> {
    const before = last ? timesAt(last, at, at) : noTime();
    const id = (await em.insert(PowerStateEntity, this.rowOf(em, clientId, state, at, before))) as number;
    this.latest.set(clientId, { ...rawOf(clientId, state, at, before), id });
  }

  private rowOf(em: EntityManager, clientId: number, state: PowerState, at: number, before: StateTimes): PowerStateRow {
    return {
      client: this.inventory.clientRef(em, clientId),
      state,
      startedAt: at,
      endedAt: null,
      offMs: before.off,
      idleMs: before.idle,
      sessionMs: before.session,
      busyMs: before.busy,
    } as PowerStateRow;
  }

  private async catchUp(): Promise<void> {
    this.latest.clear();
    const now = this.clock.now();
    const ids = [...(await this.inventory.allClients())].map((c) => c.id);
    const latest = await rowsAt(this.db, ids, now);
    const ending: RawRow[] = [];
    const opening: { id: number; last?: RawRow }[] = [];
    for (const id of ids) {
      const last = latest.get(id);
      const open = last && last.ended_at === null;
      if (last) this.latest.set(id, last);
      if (!open || !(this.shared || last.state === 'off')) {
        if (open) ending.push(last);
        opening.push({ id, last });
      }
    }
    await this.db.transactional(async (em) => {
      // New rows before old ones end: the lock order of a client's deletion (see write).
      const rows = opening.map(({ id, last }) => ({ id, before: last ? timesAt(last, now, now) : noTime() }));
      await insertInChunks<PowerStateRow>(
        em,
        PowerStateEntity,
        rows.map(({ id, before }) => this.rowOf(em, id, 'off', now, before)),
      );
      for (let i = 0; i < ending.length; i += chunk) {
        const ended = ending.slice(i, i + chunk);
        await em.nativeUpdate(PowerStateEntity, { id: { $in: ended.map((r) => Number(r.id)) } }, { endedAt: now });
        for (const row of ended) this.metrics.ended(row.state, now - Number(row.started_at));
      }
      // Their ids are not read back: the reading at now needs none.
      for (const { id, before } of rows) this.latest.set(id, rawOf(id, 'off', now, before));
    });
    this.caughtUp = true;
    if (ending.length > 0) this.log.info({ ended: ending.length }, 'power states left open by the last run end now');
  }
}
