import type { LegacySource } from '../legacy-source';
import type { LegacyRoomFolder } from '../model';
import { int, text, type Row } from './values';

/** `grupos.tipo` of room folders (the reference's AMBITO_GRUPOSAULAS). */
export const ROOM_FOLDER_KIND = 2;

/**
 * Room folders, and how many folders of other kinds (images, procedures... of the old web
 * console) the table holds: ogserve keeps no such folders.
 */
export async function readRoomFolders(source: LegacySource): Promise<{ folders: LegacyRoomFolder[]; others: number }> {
  const rows = await source.query<Row>('select idgrupo, nombregrupo, grupoid, tipo, idcentro from grupos order by idgrupo');
  const folders = rows
    .filter((r) => int(r.tipo) === ROOM_FOLDER_KIND)
    .map((r) => ({ id: int(r.idgrupo), name: text(r.nombregrupo), centerId: int(r.idcentro), parentId: int(r.grupoid) }));
  return { folders, others: rows.length - folders.length };
}
