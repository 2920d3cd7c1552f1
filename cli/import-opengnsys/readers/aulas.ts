import type { LegacySource } from '../legacy-source';
import type { LegacyRoom } from '../model';
import { flag, int, intOrNull, text, textOrNull, type Row } from './values';

export async function readRooms(source: LegacySource): Promise<LegacyRoom[]> {
  const rows = await source.query<Row>(
    'select idaula, nombreaula, idcentro, grupoid, netmask, router, ubicacion, ntp, dns, inremotepc from aulas order by idaula',
  );
  return rows.map((r) => ({
    id: int(r.idaula),
    name: text(r.nombreaula),
    centerId: int(r.idcentro),
    folderId: intOrNull(r.grupoid),
    netmask: textOrNull(r.netmask),
    gateway: textOrNull(r.router),
    location: textOrNull(r.ubicacion),
    ntp: textOrNull(r.ntp),
    dns: textOrNull(r.dns),
    remote: flag(r.inremotepc),
  }));
}
