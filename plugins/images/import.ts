import type { EntityManager } from '@mikro-orm/core';
import { execute, insertInChunks, type Database } from 'ogserve';
import { permissionDigits } from './capture';
import { imageFileStat } from './files';

/** An image record brought from another system, under the id it had there. */
export interface ImportedImage {
  id: number;
  name: string;
  description: string;
  repositoryId: number;
  centerId: number;
  groupId: number;
  clientId: number;
  disk: number;
  partition: number;
  code: number;
  type: number;
  softwareId: number;
  datasize: bigint;
  /** When it was made, seconds since 1970 (0 = unknown); the file's own time wins when the file is here. */
  created: bigint;
  revision: number;
  clonator: string;
  compressor: string;
  filesystem: string;
}

/** The images already stored: id and name (names are unique). */
export async function imageHoldings(em: EntityManager): Promise<Map<number, { name: string }>> {
  const rows = await execute<{ id: number; name: string }>(em, 'select id, name from images');
  return new Map(rows.map((r) => [Number(r.id), { name: String(r.name) }]));
}

/**
 * Write imported image records in the caller's transaction, keeping their ids. Size,
 * permissions and time come from `<name>.img` in the repository directory when it is
 * there, as for an image an agent writes; else the record says size 0.
 */
export async function writeImages(db: Database, em: EntityManager, directory: string, images: ImportedImage[]): Promise<void> {
  const rows = [];
  for (const image of images) {
    const file = await imageFileStat(directory, image.name);
    rows.push({
      id: image.id,
      name: image.name,
      description: image.description,
      size: (file?.size ?? 0n).toString(),
      datasize: image.datasize.toString(),
      permissions: file ? permissionDigits(file.mode) : '0',
      lastUpdate: (file?.mtime ?? image.created).toString(),
      softwareId: image.softwareId,
      type: image.type,
      repositoryId: image.repositoryId,
      centerId: image.centerId,
      groupId: image.groupId,
      clientId: image.clientId,
      disk: image.disk,
      partition: image.partition,
      code: image.code,
      clonator: image.clonator,
      compressor: image.compressor,
      filesystem: image.filesystem,
      revision: image.revision,
    });
  }
  await insertInChunks(em, 'Image', rows);
  await db.restartIdSequences(em, ['Image']);
}
