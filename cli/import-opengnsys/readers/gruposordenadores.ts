import type { LegacySource } from '../legacy-source';
import type { LegacyComputerFolder } from '../model';
import { int, intOrNull, text, type Row } from './values';

export async function readComputerFolders(source: LegacySource): Promise<LegacyComputerFolder[]> {
  const rows = await source.query<Row>('select idgrupo, nombregrupoordenador, idaula, grupoid from gruposordenadores order by idgrupo');
  return rows.map((r) => ({
    id: int(r.idgrupo),
    name: text(r.nombregrupoordenador),
    roomId: int(r.idaula),
    parentId: intOrNull(r.grupoid),
  }));
}
