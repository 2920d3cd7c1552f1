import 'reflect-metadata';
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { ClientEntity } from '../../../plugins/inventory';
import { StateWrites } from '../../../plugins/energy/state-writes';
import type { PowerStateRow } from '../../../plugins/energy/entities/power-state';
import type { RawRow } from '../../../plugins/energy/readings';
import { at, energySite, roomA, roomB } from './helpers';

/** A PC's rows, oldest first, as numbers. */
async function rowsOf(db: { query: (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]> }, clientId: number) {
  const rows = await db.query(
    'select state, started_at, ended_at, off_ms, idle_ms from power_states where client_id = ? order by started_at, id',
    [clientId],
  );
  return rows.map((r) => ({
    state: r.state,
    started: Number(r.started_at),
    ended: r.ended_at === null ? null : Number(r.ended_at),
    off: Number(r.off_ms),
    idle: Number(r.idle_ms),
  }));
}

test("changes of several PCs written in one batch: each row ends at its own PC's time, and a change that fails (a client that does not exist) is refused alone, the others written", async () => {
  const x = await energySite();
  try {
    const db = x.s.app.database;
    const ids = new Map<string, number>();
    for (const row of await db.query('select id, ip from clients', [])) ids.set(String(row.ip), Number(row.id));
    const [pc1, pc2] = roomA.map((ip) => ids.get(ip)!) as [number, number];
    const pc3 = ids.get(roomB[0]!)!;
    const ended: [string, number][] = [];
    const writes = new StateWrites(db, {
      rowOf: (em, clientId, state, started, before) =>
        ({
          client: em.getReference(ClientEntity, clientId),
          state,
          startedAt: started,
          endedAt: null,
          offMs: before.off,
          idleMs: before.idle,
          sessionMs: before.session,
          busyMs: before.busy,
        }) as PowerStateRow,
      latest: () => undefined,
      ended: (row: RawRow, end: number) => ended.push([row.state, end]),
    });

    // One tick: one batch, whose insert fails for the client that does not exist.
    const first = await Promise.allSettled([
      writes.write(pc1, 'idle', at('08:00')),
      writes.write(pc2, 'idle', at('08:01')),
      writes.write(999_999, 'idle', at('08:02')),
      writes.write(pc3, 'session', at('08:03')),
    ]);
    assert.deepEqual(
      first.map((r) => r.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(
      first.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<boolean>).value),
      [true, true, true],
    );
    // A second batch: the open rows end each at its own time; a change to the state a PC is in writes nothing.
    assert.deepEqual(
      await Promise.all([
        writes.write(pc1, 'off', at('09:00')),
        writes.write(pc2, 'idle', at('09:05')),
        writes.write(pc3, 'off', at('09:10')),
      ]),
      [true, false, true],
    );

    const day = at('00:00');
    assert.deepEqual(await rowsOf(db, pc1), [
      { state: 'off', started: day, ended: at('08:00'), off: 0, idle: 0 },
      { state: 'idle', started: at('08:00'), ended: at('09:00'), off: 8 * 3_600_000, idle: 0 },
      { state: 'off', started: at('09:00'), ended: null, off: 8 * 3_600_000, idle: 3_600_000 },
    ]);
    assert.deepEqual(await rowsOf(db, pc2), [
      { state: 'off', started: day, ended: at('08:01'), off: 0, idle: 0 },
      { state: 'idle', started: at('08:01'), ended: null, off: 481 * 60_000, idle: 0 },
    ]);
    const third = await rowsOf(db, pc3);
    assert.deepEqual(
      third.map((r) => [r.state, r.started, r.ended]),
      [
        ['off', day, at('08:03')],
        ['session', at('08:03'), at('09:10')],
        ['off', at('09:10'), null],
      ],
    );
    assert.deepEqual(
      (await db.query('select count(*) as n from power_states where client_id = ?', [999_999])).map((r) => Number(r.n)),
      [0],
    );
    assert.deepEqual(
      ended.sort((a, b) => a[1] - b[1]),
      [
        ['off', at('08:00')],
        ['off', at('08:01')],
        ['off', at('08:03')],
        ['idle', at('09:00')],
        ['session', at('09:10')],
      ],
    );
  } finally {
    await x.close();
  }
});

test.run();
