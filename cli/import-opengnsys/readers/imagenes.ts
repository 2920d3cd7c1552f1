import type { LegacySource } from '../legacy-source';
import type { LegacyImage } from '../model';
import { big, int, intOrNull, text, type Row } from './values';

export async function readImages(source: LegacySource): Promise<LegacyImage[]> {
  const rows = await source.query<Row>(
    `select idimagen, nombreca, revision, descripcion, idperfilsoft, idcentro, grupoid, idrepositorio, idordenador, numdisk, numpar,
      codpar, tipo, cast(fechacreacion as char) as fechacreacion, clonator, compressor, filesystem, cast(datasize as char) as datasize
      from imagenes order by idimagen`,
  );
  return rows.map((r) => ({
    id: int(r.idimagen),
    name: text(r.nombreca),
    description: text(r.descripcion),
    softwareProfileId: intOrNull(r.idperfilsoft),
    centerId: intOrNull(r.idcentro),
    groupId: intOrNull(r.grupoid),
    repositoryId: int(r.idrepositorio),
    clientId: int(r.idordenador),
    disk: int(r.numdisk),
    partition: int(r.numpar),
    code: int(r.codpar),
    type: intOrNull(r.tipo),
    revision: int(r.revision),
    // Old MySQL servers keep "no date" as the zero date.
    created: r.fechacreacion == null || String(r.fechacreacion).startsWith('0000') ? null : String(r.fechacreacion),
    clonator: text(r.clonator),
    compressor: text(r.compressor),
    filesystem: text(r.filesystem),
    datasize: big(r.datasize),
  }));
}
