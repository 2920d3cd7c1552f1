/**
 * The bulk of a legacy (OpenGnsys) site: ordinary computers with their partitions, as
 * INSERT statements for the tables of test/fixtures/opengnsys/schema.sql. They live in the
 * rows test/fixtures/opengnsys/site.sql provides: room 13 ('Aula grande', 10.3.0.0/16,
 * center 2), server 1, repository 2, hardware profile 2 and software profile 2.
 */
export interface BulkSite {
  computers: number;
  /** Rows per computer in ordenadores_particiones: the whole disk (partition 0) and partitions 1..n-1. */
  partitions: number;
}

/** The first generated computer id; the hand-written cases stay below it. */
export const FIRST_BULK_ID = 1001;
/** Computer folders the generated computers are spread over (ids 101..110, inside room 13). */
const folders = 10;
const rowsPerStatement = 1000;

export function bulkComputerId(n: number): number {
  return FIRST_BULK_ID + n;
}

/** Address of the n-th generated computer (n from 0), inside room 13's 10.3.0.0/16. */
export function bulkIp(n: number): string {
  const host = n + 2; // 10.3.0.1 is the room's router
  return `10.3.${host >> 8}.${host & 255}`;
}

export function bulkMac(n: number): string {
  return `02bb${n.toString(16).padStart(8, '0')}`;
}

/** The partitions of one generated computer, as its agent reported them: KiB and percent used. */
export function bulkPartitions(
  partitions: number,
): { numpar: number; codpar: number; tamano: number; uso: number; fs: number; os: number }[] {
  const layout = [
    { codpar: 1, tamano: 244198584, uso: 0, fs: 0, os: 0 },
    { codpar: 7, tamano: 104857600, uso: 40, fs: 13, os: 1 },
    { codpar: 131, tamano: 83886080, uso: 25, fs: 6, os: 2 },
    { codpar: 202, tamano: 31457280, uso: 60, fs: 2, os: 0 },
  ];
  return Array.from({ length: partitions }, (_, numpar) => ({
    numpar,
    ...(layout[numpar] ?? { codpar: 131, tamano: 1048576, uso: 10, fs: 6, os: 0 }),
  }));
}

function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function inserts(head: string, rows: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < rows.length; i += rowsPerStatement) out.push(`${head} VALUES ${rows.slice(i, i + rowsPerStatement).join(',\n')}`);
  return out;
}

/** The statements that add `computers` ordinary computers with `partitions` rows each. */
export function bulkSiteStatements(site: BulkSite): string[] {
  const folderRows = Array.from({ length: folders }, (_, i) => `(${101 + i}, ${quote(`Fila ${i + 1}`)}, 13, 0)`);
  const computers: string[] = [];
  const partitionRows: string[] = [];
  for (let n = 0; n < site.computers; n++) {
    const id = bulkComputerId(n);
    computers.push(
      `(${id}, 1, ${quote(`pc-${id}`)}, ${quote(`SN${id}`)}, ${quote(bulkIp(n))}, ${quote(bulkMac(n))}, 13, 2, 2, ${101 + (n % folders)}, '00unknown', 'eth0', 'generic', 'ogLive', 0, 0)`,
    );
    for (const p of bulkPartitions(site.partitions)) {
      partitionRows.push(
        `(${id}, 1, 'DISK', ${p.numpar}, ${p.codpar}, ${p.tamano}, ${p.uso}, ${p.fs}, ${p.os}, 0, 0, ${p.numpar === 2 ? 2 : 0})`,
      );
    }
  }
  return [
    ...inserts('INSERT INTO gruposordenadores (idgrupo, nombregrupoordenador, idaula, grupoid)', folderRows),
    ...inserts(
      'INSERT INTO ordenadores (idordenador, identorno, nombreordenador, numserie, ip, mac, idaula, idperfilhard, idrepositorio, grupoid, arranque, netiface, netdriver, oglivedir, inremotepc, maintenance)',
      computers,
    ),
    ...inserts(
      'INSERT INTO ordenadores_particiones (idordenador, numdisk, disk_type, numpar, codpar, tamano, uso, idsistemafichero, idnombreso, idimagen, revision, idperfilsoft)',
      partitionRows,
    ),
  ];
}
