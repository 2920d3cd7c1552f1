import { statSync } from 'node:fs';
import path from 'node:path';
import { Inventory } from '../plugins/inventory';
import { bulkInsert } from '../test/support/bulk';
import { addCenter, addRoom } from '../test/support/fixtures';
import { TOKEN, type TestServer, makeTestDir, removeTestStore, send, startServer } from '../test/support/server';
import { testEngine } from '../test/support/test-db';
import { insertClients } from './support/fleet';
import { percentile } from './support/load';
import { type BenchRow, fmt } from './support/report';

/**
 * The energy report over a long history: ENERGY_BENCH_PCS PCs (10,000) in 100 rooms of 10
 * centers, ENERGY_BENCH_DAYS days (90) of power states written as the recorder writes them
 * (a row per change, each carrying the time before it), a lab's weekday for every PC: off
 * until a wake about 07:50 (busy while it boots), idle, four classes with a user session
 * each, idle in between, left on idle until 20:00, off at night and at weekends; and each
 * PC's midnight readings, as the daily work writes them. Then the size on disk, a restart,
 * and the time of the reports, 5 runs each.
 */
const size = Number(process.env.ENERGY_BENCH_PCS ?? 10_000);
const days = Number(process.env.ENERGY_BENCH_DAYS ?? 90);
const dayMs = 86_400_000;
const minute = 60_000;
const states = ['off', 'idle', 'session', 'busy'] as const;
type State = (typeof states)[number];

/** A weekday of one PC: [minute of the day, state from then]; `shift` spreads the PCs over a few minutes. */
function weekday(shift: number): [number, State][] {
  const day: [number, State][] = [
    [470 + shift, 'busy'],
    [480 + shift, 'idle'],
  ];
  for (const [from, to] of [
    [490, 590],
    [610, 710],
    [730, 830],
    [900, 1020],
  ])
    day.push([from! + shift, 'session'], [to! + shift, 'idle']);
  day.push([1200 + shift, 'off']);
  return day;
}

/**
 * The rows of one PC from `start` to `now`, its last one open, as the recorder would have
 * written them, and its midnight readings, as the daily work would have.
 */
function rowsOf(clientId: number, start: number, now: number): { rows: unknown[][]; days: unknown[][] } {
  const rows: unknown[][] = [];
  const days: unknown[][] = [];
  const before: Record<State, number> = { off: 0, idle: 0, session: 0, busy: 0 };
  let state: State = 'off';
  let since = start;
  const change = (at: number, next: State) => {
    if (at > now || next === state) return;
    rows.push([clientId, state, since, at, before.off, before.idle, before.session, before.busy]);
    before[state] += at - since;
    state = next;
    since = at;
  };
  for (let day = start; day < now; day += dayMs) {
    const at = { ...before, [state]: before[state] + (day - since) };
    days.push([clientId, day / dayMs, at.off, at.idle, at.session, at.busy]);
    const weekdayNumber = new Date(day).getUTCDay();
    if (weekdayNumber === 0 || weekdayNumber === 6) continue;
    for (const [at, next] of weekday(clientId % 15)) change(day + at * minute, next);
  }
  rows.push([clientId, state, since, null, before.off, before.idle, before.session, before.busy]);
  return { rows, days };
}

/**
 * Five runs of a GET: wall time, and the CPU time of the process (server and database threads,
 * the client's few parsing too), which a machine busy with other work inflates far less.
 */
async function timed(s: TestServer, urlPath: string): Promise<{ p50: number; max: number; cpu: number; bytes: number }> {
  const ms: number[] = [];
  const cpu: number[] = [];
  let bytes = 0;
  for (let i = 0; i < 5; i++) {
    const t0 = process.hrtime.bigint();
    const c0 = process.cpuUsage();
    const r = await send(s.port, 'GET', urlPath, undefined, { Authorization: TOKEN });
    const used = process.cpuUsage(c0);
    cpu.push((used.user + used.system) / 1000);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (r.status !== 200) throw new Error(`GET ${urlPath}: ${r.status} ${r.text.slice(0, 200)}`);
    bytes = Buffer.byteLength(r.text);
  }
  ms.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return { p50: percentile(ms, 0.5), max: ms.at(-1)!, cpu: percentile(cpu, 0.5), bytes };
}

/** The bytes the power_states table and its indexes take (SQLite: the database file, checkpointed; the caller subtracts the rest). */
async function tableBytes(s: TestServer): Promise<number> {
  if (testEngine === 'sqlite') {
    await s.app.database.query('pragma wal_checkpoint(truncate)');
    return statSync(path.join(s.dir, 'ogserve.sqlite')).size;
  }
  if (testEngine === 'postgresql') {
    const [row] = await s.app.database.query<{ n: string }>("select pg_total_relation_size('power_states') as n");
    return Number(row!.n);
  }
  const [row] = await s.app.database.query<{ n: string }>(
    "select data_length + index_length as n from information_schema.tables where table_name = 'power_states' and table_schema = database()",
  );
  return Number(row!.n);
}

export default async (): Promise<BenchRow[]> => {
  const dir = makeTestDir();
  const config = { log: { level: 'warn' }, rest: { max_response_bytes: 64 * 1024 * 1024 } };
  let s = await startServer({ dir, config });
  const rows: BenchRow[] = [];
  try {
    const rooms: number[] = [];
    for (let c = 0; c < 10; c++) {
      const center = await addCenter(s, `Center ${c}`);
      for (let r = 0; r < 10; r++) rooms.push(await addRoom(s, center, `Room ${c}.${r}`, '255.0.0.0'));
    }
    const ips = Array.from({ length: size }, (_, i) => `127.3.${Math.floor(i / 200)}.${(i % 200) + 1}`);
    await insertClients(s, ips, (i) => rooms[Math.floor((i * rooms.length) / size)]!);
    const ids = [...(await s.app.container.resolve(Inventory).allClients())].map((c) => c.id);

    const emptyBytes = testEngine === 'sqlite' ? await tableBytes(s) : 0;
    const now = Date.now();
    const start = Math.floor(now / dayMs) * dayMs - days * dayMs;
    const t0 = Date.now();
    let written = 0;
    let daysWritten = 0;
    for (let i = 0; i < ids.length; i += 100) {
      const batch = ids.slice(i, i + 100).map((id) => rowsOf(id, start, now));
      const states = batch.flatMap((b) => b.rows);
      const midnights = batch.flatMap((b) => b.days);
      await bulkInsert(
        s.app.database,
        'power_states',
        ['client_id', 'state', 'started_at', 'ended_at', 'off_ms', 'idle_ms', 'session_ms', 'busy_ms'],
        states,
        1000,
      );
      await bulkInsert(s.app.database, 'power_days', ['client_id', 'day', 'off_ms', 'idle_ms', 'session_ms', 'busy_ms'], midnights, 1000);
      written += states.length;
      daysWritten += midnights.length;
    }
    const bytes = (await tableBytes(s)) - emptyBytes;
    rows.push({
      workload: `energy: ${size} PCs, ${days} days of power states`,
      figures: {
        rows: written,
        rows_per_pc: fmt(written / size, 0),
        write_s: fmt((Date.now() - t0) / 1000, 1),
        midnight_rows: daysWritten,
        mib_on_disk: fmt(bytes / 2 ** 20, 1),
        bytes_per_state_row: fmt(bytes / written, 0),
      },
    });

    // Restarted, as a site's server would have been: every PC off from the start, each one's latest row read once.
    await s.close();
    const t1 = Date.now();
    s = await startServer({ dir, config });
    rows.push({ workload: `energy: ${size} PCs, restart`, figures: { start_s: fmt((Date.now() - t1) / 1000, 1) } });

    // Up to now, from a midnight (the console's ranges, the default); then from and to at any time (a seek per PC each).
    const all = `from=${start}`;
    for (const [name, query] of [
      ['by room, last 7 days', '/energy?by=room'],
      [`by room, ${days} days`, `/energy?by=room&${all}`],
      [`by center, ${days} days`, `/energy?by=center&${all}`],
      [`by client, ${days} days`, `/energy?by=client&${all}`],
      [`by day, one room, ${days} days`, `/energy?by=day&room=${rooms[0]}&${all}`],
      ['now, every room', '/energy/now'],
      [`by room, ${days} days, any times`, `/energy?by=room&from=${start + 12 * 3_600_000}&to=${Date.now() - 3_600_000}`],
    ] as const) {
      const t = await timed(s, query);
      rows.push({
        workload: `energy: GET ${name}`,
        figures: { p50_ms: fmt(t.p50, 1), max_ms: fmt(t.max, 1), cpu_ms: fmt(t.cpu, 1), kib: fmt(t.bytes / 1024, 0) },
      });
    }
  } finally {
    await s.close();
    await removeTestStore(dir);
  }
  return rows;
};
