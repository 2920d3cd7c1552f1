import type { LegacySource } from '../legacy-source';
import type { LegacySoftwareProfile } from '../model';
import { int, text, type Row } from './values';

/** Software profiles: the operating system, then the packages in the order the reference built them (by id). */
export async function readSoftwareProfiles(source: LegacySource): Promise<Map<number, LegacySoftwareProfile>> {
  const profiles = new Map<number, LegacySoftwareProfile>();
  const rows = await source.query<Row>(
    `select p.idperfilsoft, coalesce(o.nombreso, '') as os from perfilessoft p
      left join nombresos o on o.idnombreso = p.idnombreso order by p.idperfilsoft`,
  );
  for (const r of rows) profiles.set(int(r.idperfilsoft), { id: int(r.idperfilsoft), os: text(r.os), packages: [] });
  const packages = await source.query<Row>(
    `select l.idperfilsoft, s.descripcion from perfilessoft_softwares l
      join softwares s on s.idsoftware = l.idsoftware order by l.idperfilsoft, s.idsoftware`,
  );
  for (const r of packages) profiles.get(int(r.idperfilsoft))?.packages.push(text(r.descripcion));
  return profiles;
}
