import { ipv4ToInt } from 'ogserve';
import type { HardwareInventory } from '../agents';
import type { Inventory } from '../inventory';
import { type Readings, between } from './readings';
import { type PowerState, type StateTimes, noTime, powerStates } from './states';
import { type Watts, type WattsRules, kwhOf } from './watts';

export type Grouping = 'client' | 'room' | 'center' | 'day';

/** What GET /energy asks for: a time range, how to group, and which PCs. */
export interface EnergyQuery {
  from: number;
  to: number;
  by: Grouping;
  room?: number;
  center?: number;
}

type Hours = Record<PowerState | 'unknown', number>;
type Kwh = Record<PowerState | 'total', number>;

export interface EnergyFigures {
  clients: number;
  hours: Hours;
  kwh: Kwh;
}

/** A group of GET /energy: a PC (with its address, room and center), a room (with its center), a center or a day. */
export interface EnergyGroup extends EnergyFigures {
  id: number;
  name: string;
  ip?: string;
  room?: string;
  center?: string;
}

export interface EnergyReport {
  from: string;
  to: string;
  by: Grouping;
  groups: EnergyGroup[];
  total: EnergyFigures;
}

/** A PC as the report counts it. */
export interface Pc {
  id: number;
  ip: string;
  name: string;
  room: { id: number; name: string };
  center: { id: number; name: string };
  watts: Watts;
}

export interface ReportSources {
  readings: Readings;
  inventory: Inventory;
  hardware: HardwareInventory;
  rules: WattsRules;
}

const dayMs = 86_400_000;

/** The PCs a report counts: those of the room or center asked, within `inside` (a limited caller's addresses). */
export async function pcsOf(
  { inventory, hardware, rules }: ReportSources,
  filter: { room?: number; center?: number },
  inside?: ReadonlySet<string>,
): Promise<Pc[]> {
  const centers = new Map((await inventory.fleetLabels()).map((l) => [l.ip, l.center]));
  const clients = [...(await inventory.allClients())].filter(
    (c) =>
      (filter.room === undefined || c.room.id === filter.room) &&
      (filter.center === undefined || c.room.centerId === filter.center) &&
      (!inside || inside.has(c.ip)),
  );
  const models = new Map<number, string>();
  if (rules.byModel) {
    for (const c of await hardware.components(
      ['mod'],
      clients.map((c) => c.id),
    ))
      if (!models.has(c.clientId)) models.set(c.clientId, c.description);
  }
  return clients.map((c) => ({
    id: c.id,
    ip: c.ip,
    name: c.name,
    room: { id: c.room.id, name: c.room.name },
    center: { id: c.room.centerId, name: centers.get(c.ip) ?? '' },
    watts: rules.of(c.room.id, models.get(c.id)),
  }));
}

/** Sums of time and energy, in milliseconds and kWh, before rounding. */
class Sum {
  readonly clients = new Set<number>();
  readonly ms = noTime();
  readonly kwh = noTime();
  rangeMs = 0;

  add(pc: Pc, times: StateTimes, rangeMs: number): void {
    this.clients.add(pc.id);
    this.rangeMs += rangeMs;
    const kwh = kwhOf(times, pc.watts);
    for (const state of powerStates) {
      this.ms[state] += times[state];
      this.kwh[state] += kwh[state];
    }
  }

  figures(): EnergyFigures {
    const hours = { unknown: 0 } as Hours;
    const kwh = { total: 0 } as Kwh;
    let known = 0;
    for (const state of powerStates) {
      hours[state] = round(this.ms[state] / 3_600_000, 4);
      kwh[state] = round(this.kwh[state], 3);
      known += this.ms[state];
      kwh.total += this.kwh[state];
    }
    hours.unknown = round(Math.max(0, this.rangeMs - known) / 3_600_000, 4);
    kwh.total = round(kwh.total, 3);
    return { clients: this.clients.size, hours, kwh };
  }
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * Hours in each state and estimated kWh of `pcs` over the range, by PC, room, center or UTC
 * day. Each PC's time is two readings subtracted per range (one per day boundary by day);
 * the range stops at `now`. A PC's time starts at its first row (before it, the PC was not
 * there or not followed: no time of its own, where it counted as unknown); from then on, what
 * no row covers (the server down, rows gone with the retention) is `unknown`.
 */
export async function energyReport(readings: Readings, pcs: Pc[], query: EnergyQuery, now: number): Promise<EnergyReport> {
  const to = Math.min(query.to, now);
  const from = Math.min(query.from, to);
  const ids = pcs.map((pc) => pc.id);
  const first = await readings.firstSeen(ids);
  /** A PC's part of [start, end): from its first row on (all of it when that row went with the retention). */
  const span = (pc: Pc, start: number, end: number) => Math.max(0, end - Math.max(start, first.get(pc.id) ?? start));
  const groups = new Map<string, { group: Omit<EnergyGroup, keyof EnergyFigures>; sum: Sum }>();
  const total = new Sum();
  const add = (key: string, group: Omit<EnergyGroup, keyof EnergyFigures>, pc: Pc, times: StateTimes, rangeMs: number) => {
    const entry = groups.get(key) ?? { group, sum: new Sum() };
    groups.set(key, entry);
    entry.sum.add(pc, times, rangeMs);
    total.add(pc, times, rangeMs);
  };
  if (query.by === 'day') {
    // Each UTC day's boundaries within the range: one reading per PC at each.
    const bounds = [from];
    for (let day = Math.floor(from / dayMs) * dayMs + dayMs; day < to; day += dayMs) bounds.push(day);
    if (to > from) bounds.push(to);
    let before = await readings.at(ids, bounds[0]!, now);
    for (let i = 1; i < bounds.length; i++) {
      const after = await readings.at(ids, bounds[i]!, now);
      const day = Math.floor(bounds[i - 1]! / dayMs);
      const group = { id: day, name: new Date(day * dayMs).toISOString().slice(0, 10) };
      for (const pc of pcs) add(String(day), group, pc, between(before.get(pc.id), after.get(pc.id)), span(pc, bounds[i - 1]!, bounds[i]!));
      before = after;
    }
  } else {
    const [start, end] = [await readings.at(ids, from, now), await readings.at(ids, to, now)];
    for (const pc of pcs) {
      const [key, group] = groupOf(pc, query.by);
      add(key, group, pc, between(start.get(pc.id), end.get(pc.id)), span(pc, from, to));
    }
  }
  const ordered = [...groups.values()].map(({ group, sum }) => ({ ...group, ...sum.figures() }));
  if (query.by === 'client') ordered.sort((a, b) => ipv4ToInt(a.ip!) - ipv4ToInt(b.ip!));
  else if (query.by === 'day') ordered.sort((a, b) => a.id - b.id);
  else ordered.sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString(), by: query.by, groups: ordered, total: total.figures() };
}

function groupOf(pc: Pc, by: Exclude<Grouping, 'day'>): [string, Omit<EnergyGroup, keyof EnergyFigures>] {
  if (by === 'client') return [`${pc.id}`, { id: pc.id, name: pc.name, ip: pc.ip, room: pc.room.name, center: pc.center.name }];
  if (by === 'room') return [`${pc.room.id}`, { id: pc.room.id, name: pc.room.name, center: pc.center.name }];
  return [`${pc.center.id}`, { id: pc.center.id, name: pc.center.name }];
}

/** A CSV field: quoted when it holds a comma, a quote or a line break; a leading = + - @ is kept as text. */
function field(value: string | number): string {
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The report as CSV: one row per group, hours then kWh by state. */
export function energyCsv(report: EnergyReport): string {
  const hours = [...powerStates, 'unknown'] as const;
  const kwh = [...powerStates, 'total'] as const;
  const head = [
    report.by,
    ...(report.by === 'client' ? ['ip', 'room', 'center'] : report.by === 'room' ? ['center'] : []),
    'clients',
    ...hours.map((s) => `${s}_hours`),
    ...kwh.map((s) => `${s}_kwh`),
  ];
  const rows = report.groups.map((g) => [
    g.name,
    ...(report.by === 'client' ? [g.ip!, g.room!, g.center!] : report.by === 'room' ? [g.center!] : []),
    g.clients,
    ...hours.map((s) => g.hours[s]),
    ...kwh.map((s) => g.kwh[s]),
  ]);
  return `${[head, ...rows].map((row) => row.map(field).join(',')).join('\r\n')}\r\n`;
}
