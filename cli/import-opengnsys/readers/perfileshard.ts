import type { LegacySource } from '../legacy-source';
import type { LegacyHardwareProfile } from '../model';
import { int, text, type Row } from './values';

/** Hardware profiles with their components, in the order the reference built them (by component id). */
export async function readHardwareProfiles(source: LegacySource): Promise<Map<number, LegacyHardwareProfile>> {
  const profiles = new Map<number, LegacyHardwareProfile>();
  for (const r of await source.query<Row>('select idperfilhard, descripcion from perfileshard order by idperfilhard')) {
    profiles.set(int(r.idperfilhard), { id: int(r.idperfilhard), name: text(r.descripcion), items: [] });
  }
  const items = await source.query<Row>(
    `select l.idperfilhard, t.nemonico, h.descripcion from perfileshard_hardwares l
      join hardwares h on h.idhardware = l.idhardware
      join tipohardwares t on t.idtipohardware = h.idtipohardware
      order by l.idperfilhard, h.idhardware`,
  );
  for (const r of items) profiles.get(int(r.idperfilhard))?.items.push({ type: text(r.nemonico), description: text(r.descripcion) });
  return profiles;
}
