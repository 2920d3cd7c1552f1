import type { EntityManager } from '@mikro-orm/core';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { type Clock, Database, ErrorCode, badRequest, inject, injectable, type Logger, PluginLog } from 'ogserve';
import { ImagesClock } from '../clock';
import { type Image, ImageEntity } from '../entities/image';
import { ImageScopeEntity } from '../entities/image-scope';
import { type ImageTrash, ImageTrashEntity } from '../entities/image-trash';
import { type ImageVersion, ImageVersionEntity } from '../entities/image-version';
import { ImageStore } from '../store';
import { folderBytes, moveFiles, removeFiles, versionBase } from './files';

/** Where the files are, and how long a deleted image is kept (`repository.trash_days`; 0: not kept). */
export interface TrashSettings {
  directory: string;
  trashDays: number;
}
export const TrashSettings = Symbol('TrashSettings');

/** What the trash keeps of an image besides its files: its record, its versions' and its centers. */
interface Kept {
  image: Image;
  versions: ImageVersion[];
  scopes: number[];
}

/** A trashed image as GET /image/trash lists it. */
export interface TrashedView {
  id: number;
  name: string;
  bytes: number;
  trashed: string;
  /** When it goes for good. */
  expires: string;
  versions: number[];
}

const dayMs = 24 * 60 * 60 * 1000;

/**
 * Deleted images kept `repository.trash_days` days: POST /image/delete moves the record (with
 * its versions' and its centers) into the trash table and the files into
 * `<repository>/.trash/<trash id>/` (never served, hidden from the share), POST /image/recover
 * puts both back; past their days, one instance removes them for good. With trash_days 0 a
 * deleted image's files go at once, as the reference does.
 */
@injectable()
export class ImageTrashCan {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(ImageStore) private readonly store: ImageStore,
    @inject(TrashSettings) private readonly settings: TrashSettings,
    @inject(ImagesClock) private readonly clock: Clock,
    @inject(PluginLog) private readonly log: Logger,
  ) {}

  private get root(): string {
    return path.join(path.resolve(this.settings.directory), '.trash');
  }

  /** Delete image `id`: its record (one transaction) then its files, kept or removed; its name, or undefined when there is none. */
  async delete(id: number, em?: EntityManager): Promise<{ name: string; kept: boolean } | undefined> {
    const now = this.clock.now();
    const keep = this.settings.trashDays > 0;
    const done = await this.store.writing(() =>
      this.db.transactional(async (em) => {
        const image = await em.findOne(ImageEntity, { id });
        if (!image) return undefined;
        const versions = await em.find(ImageVersionEntity, { imageId: id });
        const scopes = (await em.find(ImageScopeEntity, { image: id })).map((s) => s.centerId);
        let trashId: number | undefined;
        if (keep) {
          const kept: Kept = { image: { ...image }, versions: versions.map((v) => ({ ...v })), scopes };
          trashId = (await em.insert(ImageTrashEntity, {
            imageId: id,
            name: image.name,
            record: JSON.stringify(kept, (_key, value) => (typeof value === 'bigint' ? value.toString() : value)),
            bytes: '0',
            trashedAt: String(Math.floor(now / 1000)),
          })) as number;
        }
        await em.nativeDelete(ImageVersionEntity, { imageId: id });
        await em.nativeDelete(ImageScopeEntity, { image: id });
        await em.nativeDelete(ImageEntity, { id });
        return { name: image.name, versions: versions.map((v) => v.version), trashId };
      }),
    );
    if (!done) return undefined;
    const { directory } = this.settings;
    const bases = [done.name, ...done.versions.map((v) => versionBase(done.name, v))];
    // A file that cannot go (a name from a migrated record that would leave the directory) is
    // logged, not an error: the record is gone, and nothing outside the directory is touched.
    const each = async (work: (base: string) => Promise<unknown>) => {
      for (const base of bases)
        await work(base).catch((error: Error) =>
          this.log.warn({ image: done.name, file: base }, `image file not removed: ${error.message}`),
        );
    };
    if (done.trashId === undefined) {
      await each((base) => removeFiles(directory, base));
      return { name: done.name, kept: false };
    }
    const folder = path.join(this.root, String(done.trashId));
    await mkdir(folder, { recursive: true });
    await each((base) => moveFiles(directory, base, folder, base));
    await this.db.unit(em).nativeUpdate(ImageTrashEntity, { id: done.trashId }, { bytes: String(await folderBytes(folder)) });
    return { name: done.name, kept: true };
  }

  /** Put the latest trashed image that had id `imageId` back: its record (its id when free) and its files. */
  async recover(imageId: number, em?: EntityManager): Promise<{ id: number; name: string }> {
    const row = (await this.db.unit(em).find(ImageTrashEntity, { imageId }, { orderBy: { id: 'desc' }, limit: 1 }))[0];
    if (!row) throw badRequest(ErrorCode.unknownId, `no deleted image with id ${imageId} in the trash (GET /image/trash)`, 'id');
    const kept = JSON.parse(row.record) as Kept;
    const recovered = await this.store.writing(() =>
      this.db.transactional(async (em) => {
        if (await em.findOne(ImageEntity, { name: kept.image.name }))
          throw badRequest(ErrorCode.conflict, `an image named '${kept.image.name}' exists again: delete or rename it first`, 'id');
        const { id: oldId, ...fields } = kept.image;
        const idFree = !(await em.findOne(ImageEntity, { id: oldId }));
        const row: Partial<Image> = idFree ? { ...fields, id: oldId } : fields;
        const id = (await em.insert(ImageEntity, row as Image)) as number;
        for (const { id: _versionId, ...version } of kept.versions) await em.insert(ImageVersionEntity, { ...version, imageId: id });
        for (const centerId of kept.scopes) await em.insert(ImageScopeEntity, { image: id, centerId });
        await em.nativeDelete(ImageTrashEntity, { id: row.id });
        return { id, name: kept.image.name };
      }),
    );
    const folder = path.join(this.root, String(row.id));
    const bases = [kept.image.name, ...kept.versions.map((v) => versionBase(kept.image.name, v.version))];
    for (const base of bases) await moveFiles(folder, base, this.settings.directory, base);
    await rm(folder, { recursive: true, force: true });
    this.log.info({ image: recovered.name, id: recovered.id }, `image '${recovered.name}' recovered from the trash`);
    return recovered;
  }

  /** What the trash holds, newest first. */
  async list(em?: EntityManager): Promise<TrashedView[]> {
    const rows = await this.db.unit(em).find(ImageTrashEntity, {}, { orderBy: { id: 'desc' } });
    return rows.map((row) => this.view(row));
  }

  /** Remove for good what was deleted more than trash_days ago; how many. */
  async purge(em?: EntityManager): Promise<number> {
    const before = Math.floor((this.clock.now() - this.settings.trashDays * dayMs) / 1000);
    const rows = await this.db.unit(em).find(ImageTrashEntity, { trashedAt: { $lte: String(before) } });
    for (const row of rows) {
      await rm(path.join(this.root, String(row.id)), { recursive: true, force: true });
      await this.db.unit(em).nativeDelete(ImageTrashEntity, { id: row.id });
      this.log.info({ image: row.name }, `deleted image '${row.name}' removed from the trash (repository.trash_days)`);
    }
    return rows.length;
  }

  private view(row: ImageTrash): TrashedView {
    const trashed = Number(row.trashedAt) * 1000;
    const kept = JSON.parse(row.record) as Kept;
    return {
      id: row.imageId,
      name: row.name,
      bytes: Number(row.bytes),
      trashed: new Date(trashed).toISOString(),
      expires: new Date(trashed + this.settings.trashDays * dayMs).toISOString(),
      versions: kept.versions.map((v) => v.version),
    };
  }
}
