import type { LegacySource } from '../legacy-source';
import type { LegacyRepository } from '../model';
import { int, intOrNull, text, type Row } from './values';

export async function readRepositories(source: LegacySource): Promise<LegacyRepository[]> {
  const rows = await source.query<Row>('select idrepositorio, nombrerepositorio, ip, idcentro from repositorios order by idrepositorio');
  return rows.map((r) => ({ id: int(r.idrepositorio), name: text(r.nombrerepositorio), ip: text(r.ip), centerId: intOrNull(r.idcentro) }));
}
