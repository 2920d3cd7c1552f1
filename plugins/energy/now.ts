import type { Readings } from './readings';
import type { Pc } from './report';
import { type PowerState, powerStates } from './states';

/** A room as GET /energy/now shows it: how many of its PCs are in each state now, and each PC's state since when. */
export interface RoomNow {
  id: number;
  name: string;
  center: string;
  counts: Record<PowerState, number>;
  pcs: { ip: string; name: string; state: PowerState; since: string | null }[];
}

/**
 * Each room's PCs by power state now: a PC with no open row (none recorded yet, or the server
 * stopped) is off since an unknown time. PCs in the same state longest first, then by address.
 */
export async function roomsNow(readings: Readings, pcs: Pc[], now: number): Promise<RoomNow[]> {
  const latest = await readings.rowsNow(
    pcs.map((pc) => pc.id),
    now,
  );
  const rooms = new Map<number, RoomNow>();
  for (const pc of pcs) {
    const room = rooms.get(pc.room.id) ?? {
      id: pc.room.id,
      name: pc.room.name,
      center: pc.center.name,
      counts: Object.fromEntries(powerStates.map((s) => [s, 0])) as Record<PowerState, number>,
      pcs: [],
    };
    rooms.set(pc.room.id, room);
    const row = latest.get(pc.id);
    const open = row && row.ended_at === null ? row : undefined;
    const state = open?.state ?? 'off';
    room.counts[state]++;
    room.pcs.push({ ip: pc.ip, name: pc.name, state, since: open ? new Date(Number(open.started_at)).toISOString() : null });
  }
  const order = (a: RoomNow['pcs'][number], b: RoomNow['pcs'][number]) =>
    powerStates.indexOf(a.state) - powerStates.indexOf(b.state) || (a.since ?? '').localeCompare(b.since ?? '') || a.ip.localeCompare(b.ip);
  for (const room of rooms.values()) room.pcs.sort(order);
  return [...rooms.values()].sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);
}
