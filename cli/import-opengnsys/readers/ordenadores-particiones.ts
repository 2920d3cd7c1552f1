import type { LegacySource } from '../legacy-source';
import type { LegacyPartition } from '../model';
import type { Progress } from '../progress';
import { big, int, text, textOrNull, type Row } from './values';

const clientsPerPage = 2000;

/**
 * Partitions with their filesystem and OS names, read for the given computers (every row
 * belongs to one: the reference's foreign key cascades), a page of computers at a time.
 */
export async function readPartitions(source: LegacySource, clientIds: number[], progress: Progress): Promise<LegacyPartition[]> {
  const ids = [...clientIds].sort((a, b) => a - b);
  const out: LegacyPartition[] = [];
  for (let i = 0; i < ids.length; i += clientsPerPage) {
    const first = ids[i]!;
    const last = ids[Math.min(i + clientsPerPage, ids.length) - 1]!;
    const rows = await source.query<Row>(
      `select p.idordenador, p.numdisk, p.numpar, p.disk_type, p.codpar, cast(p.tamano as char) as tamano, p.uso,
        coalesce(f.descripcion, '') as filesystem, coalesce(o.nombreso, '') as os, p.idimagen, p.idperfilsoft
        from ordenadores_particiones p
        left join sistemasficheros f on f.idsistemafichero = p.idsistemafichero
        left join nombresos o on o.idnombreso = p.idnombreso
        where p.idordenador between ? and ? order by p.idordenador, p.numdisk, p.numpar`,
      [first, last],
    );
    for (const r of rows) out.push(partition(r));
    progress.advance('reading ordenadores_particiones (by computer)', Math.min(i + clientsPerPage, ids.length), ids.length);
  }
  return out;
}

function partition(r: Row): LegacyPartition {
  return {
    clientId: int(r.idordenador),
    disk: int(r.numdisk),
    partition: int(r.numpar),
    diskType: textOrNull(r.disk_type),
    code: int(r.codpar),
    sizeKiB: big(r.tamano),
    usedPercent: int(r.uso),
    filesystem: text(r.filesystem),
    os: text(r.os),
    imageId: int(r.idimagen),
    softwareProfileId: int(r.idperfilsoft),
  };
}
