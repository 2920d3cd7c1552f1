import type { LegacySource } from '../legacy-source';
import type { LegacyCenter } from '../model';
import { int, text, textOrNull, type Row } from './values';

export async function readCenters(source: LegacySource): Promise<LegacyCenter[]> {
  const rows = await source.query<Row>('select idcentro, nombrecentro, comentarios from centros order by idcentro');
  return rows.map((r) => ({ id: int(r.idcentro), name: text(r.nombrecentro), comment: textOrNull(r.comentarios) }));
}
