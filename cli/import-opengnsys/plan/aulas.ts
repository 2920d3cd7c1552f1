import { bundledParts } from '../parts';
import { refusalOf } from './body-check';
import { UniqueKeys, alreadyThere, decide, idRefusal, label, type Planning } from './context';

const { RoomAdd } = bundledParts.inventory.bodies;

const table = 'aulas';
const columns = { name: 'nombreaula', netmask: 'netmask', gateway: 'router', location: 'ubicacion', ntp: 'ntp', dns: 'dns' };

/**
 * Rooms, by POST /room/add's rules: a netmask ogserve can use (Wake-on-LAN needs it), names
 * unique within a center. A room without a netmask gets the default one with a note, rather
 * than being refused with all its computers; a malformed one is refused. A room whose
 * folder leads nowhere goes to the top of its center.
 */
export function planRooms(p: Planning): void {
  p.ledger.read(table, p.site.rooms.length);
  const names = new UniqueKeys('name', p.rules.held.keys.roomNames);
  for (const room of p.site.rooms) {
    const row = label(table, room.id, room.name);
    const nameKey = `${room.centerId}\u0000${room.name}`;
    const legacy = { row, identity: nameKey, held: p.rules.held.rows.rooms, what: 'center and name' };
    if (alreadyThere(p, p.rooms, table, room.id, p.rules.held.rooms, legacy)) continue;
    const missingNetmask = room.netmask === null || room.netmask === '';
    const body = {
      center: room.centerId,
      name: room.name,
      netmask: missingNetmask ? p.choices.defaultNetmask : room.netmask!,
      gateway: room.gateway ?? '',
      location: room.location ?? '',
      ntp: room.ntp ?? '',
      dns: room.dns ?? '',
      remote: room.remote,
    };
    const reason =
      idRefusal(room.id) ??
      p.centers.whyNot(room.centerId) ??
      refusalOf(RoomAdd, body, columns, table) ??
      names.taken(nameKey, `${JSON.stringify(room.name)} in center ${room.centerId}`);
    const kept = decide(p, p.rooms, table, row, room.id, reason, () => ({
      id: room.id,
      name: room.name,
      centerId: room.centerId,
      folderId: folderOf(p, room.folderId, room.centerId, row),
      netmask: body.netmask,
      gateway: body.gateway,
      location: body.location,
      ntp: body.ntp,
      dns: body.dns,
      remote: room.remote,
    }));
    if (kept) {
      if (missingNetmask) {
        const found = room.netmask === null ? 'NULL' : '""';
        p.ledger.changed(table, row, `it has no netmask (aulas.netmask = ${found}): given ${body.netmask}`);
      }
      names.hold(nameKey, row);
      p.plan.rooms.push(kept);
    }
  }
}

/** The room folder a room goes in, or null (top of the center) with a note when its folder leads nowhere. */
function folderOf(p: Planning, folderId: number | null, centerId: number, row: string): number | null {
  if (!folderId) return null;
  const folder = p.roomFolders.kept.get(folderId);
  const why =
    p.roomFolders.whyNot(folderId) ??
    (folder && folder.centerId !== centerId ? `room folder ${folderId} belongs to center ${folder.centerId}` : undefined);
  if (why === undefined) return folderId;
  p.ledger.changed(table, row, `${why}: kept at the top of center ${centerId}`);
  return null;
}
