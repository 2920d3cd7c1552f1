import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/core';
import { Database, execute, inject, injectable } from 'ogserve';
import { ImageEntity, type ImageState, MONOLITHIC, type Image } from './entities/image';
import { ImageScopeEntity } from './entities/image-scope';

/** An image row as listed: 64-bit values exact (bigint). */
export interface ImageRow {
  id: number;
  name: string;
  description: string;
  size: bigint;
  datasize: bigint;
  checksum: string;
  permissions: string;
  lastUpdate: bigint;
  softwareId: number;
  type: number;
  repositoryId: number;
  centerId: number;
  groupId: number;
  sha256: string;
  state: ImageState;
  damage: string;
  /** Seconds since 1970; 0: never checked. */
  checkedAt: number;
}

/** What hashing and checking an image's file found, for its record. */
export interface ImageIntegrity {
  state: ImageState;
  damage?: string;
  sha256?: string;
  size?: bigint;
  /** The agent's md5 of the file (its `.full.sum`), when the record had none. */
  checksum?: string;
  checkedAt?: number;
}

/** What an agent's image/create answer, with the request behind it, stores. */
export interface ImageCapture {
  name: string;
  repositoryId: number;
  /** Only when the request carried them: a refresh keeps what it does not say. */
  description?: string;
  centerId?: number;
  groupId?: number;
  clientId: number;
  /** The source partition's software profile (0 when none was reported). */
  softwareId?: number;
  disk: number;
  partition: number;
  code: number;
  size: bigint;
  datasize: bigint;
  checksum: string;
  permissions: string;
  lastUpdate: bigint;
  clonator: string;
  compressor: string;
  filesystem: string;
}

export type ImageChanges = Partial<Pick<Image, 'description' | 'centerId' | 'groupId' | 'repositoryId' | 'softwareId' | 'type'>>;

/**
 * The images table: every multi-row change is one transaction. Every write goes through
 * here, so the list consoles poll is kept in memory and dropped after each write.
 */
@injectable()
export class ImageStore {
  private listed?: Promise<ImageRow[]>;

  constructor(@inject(Database) private readonly db: Database) {}

  /** Every image, by id. */
  list(): Promise<ImageRow[]> {
    if (!this.listed) {
      const query = this.query();
      this.listed = query;
      // A failed query is not remembered.
      query.catch(() => {
        if (this.listed === query) this.listed = undefined;
      });
    }
    return this.listed;
  }

  /** Run a write and drop the remembered list once it is done (committed or not); for writes made beside the store (trash, versions). */
  async writing<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      this.listed = undefined;
    }
  }

  private async query(): Promise<ImageRow[]> {
    const big = (column: string) => `${this.db.bigintAsText(column)} as ${column}`;
    const rows = await this.db.query(
      `select id, name, description, ${big('size')}, ${big('datasize')}, checksum, permissions, ${big('last_update')}, software_id, image_type,
        repository_id, center_id, group_id, sha256, file_state, damage, checked_at from images order by id`,
    );
    return rows.map((r) => ({
      id: Number(r.id),
      name: String(r.name),
      description: String(r.description ?? ''),
      size: BigInt(String(r.size)),
      datasize: BigInt(String(r.datasize)),
      checksum: String(r.checksum ?? ''),
      permissions: String(r.permissions),
      lastUpdate: BigInt(String(r.last_update)),
      softwareId: Number(r.software_id),
      type: Number(r.image_type),
      repositoryId: Number(r.repository_id),
      centerId: Number(r.center_id),
      groupId: Number(r.group_id),
      sha256: String(r.sha256 ?? ''),
      state: String(r.file_state ?? 'available') as ImageState,
      damage: String(r.damage ?? ''),
      checkedAt: Number(r.checked_at ?? 0),
    }));
  }

  /** The listed image named `name`, if any (from the list kept in memory). */
  async named(name: string): Promise<ImageRow | undefined> {
    return (await this.list()).find((i) => i.name === name);
  }

  /** Record what hashing or checking the image's file found; false when the image is gone. */
  setIntegrity(id: number, found: ImageIntegrity, em?: EntityManager): Promise<boolean> {
    return this.writing(async () => {
      const changes: Record<string, unknown> = { state: found.state, damage: found.damage ?? '' };
      if (found.sha256 !== undefined) changes.sha256 = found.sha256;
      if (found.size !== undefined) changes.size = found.size.toString();
      if (found.checksum !== undefined) changes.checksum = found.checksum;
      if (found.checkedAt !== undefined) changes.checkedAt = String(found.checkedAt);
      const updated = await this.db.unit(em).nativeUpdate(ImageEntity, { id }, changes);
      return updated > 0;
    });
  }

  /** The caller's unit of work, or a fresh one for reads outside a request (agent answers, commands a job sends). */
  unit(em: EntityManager | undefined): EntityManager {
    return this.db.unit(em);
  }

  byId(em: EntityManager, id: number): Promise<Image | null> {
    return em.findOne(ImageEntity, { id });
  }

  byName(em: EntityManager, name: string): Promise<Image | null> {
    return em.findOne(ImageEntity, { name });
  }

  /**
   * Create the image named in the capture, or refresh it if it exists: one transaction
   * keyed on the unique name, so two answers for one name never make two rows. When a
   * concurrent writer inserted the name first, the insert fails on the unique index and
   * the second attempt refreshes that row instead.
   */
  saveCapture(capture: ImageCapture): Promise<number> {
    return this.writing(() => this.upsert(capture));
  }

  private async upsert(capture: ImageCapture): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.db.transactional(async (em) => {
          const fields = {
            repositoryId: capture.repositoryId,
            clientId: capture.clientId,
            softwareId: capture.softwareId ?? 0,
            disk: capture.disk,
            partition: capture.partition,
            code: capture.code,
            size: capture.size.toString(),
            datasize: capture.datasize.toString(),
            checksum: capture.checksum,
            permissions: capture.permissions,
            lastUpdate: capture.lastUpdate.toString(),
            clonator: capture.clonator,
            compressor: capture.compressor,
            filesystem: capture.filesystem,
            // Written again by the agent: hashed anew before it is known good.
            sha256: '',
            state: 'hashing' as const,
            damage: '',
          };
          const existing = await this.byName(em, capture.name);
          // Native statements: the 64-bit columns are written as decimal strings, exact.
          if (existing) {
            await em.nativeUpdate(
              ImageEntity,
              { id: existing.id },
              {
                ...fields,
                ...(capture.description === undefined ? {} : { description: capture.description }),
                // 0 is what consoles send when they mean "unchanged"; /image/update sets 0 explicitly.
                ...(capture.centerId ? { centerId: capture.centerId } : {}),
                ...(capture.groupId ? { groupId: capture.groupId } : {}),
                revision: existing.revision + 1,
              },
            );
            return existing.id;
          }
          return (await em.insert(ImageEntity, {
            ...fields,
            name: capture.name,
            description: capture.description ?? '',
            centerId: capture.centerId ?? 0,
            groupId: capture.groupId ?? 0,
            type: MONOLITHIC,
            revision: 1,
            checkedAt: '0',
          })) as number;
        });
      } catch (error) {
        if (!(error instanceof UniqueConstraintViolationException) || attempt > 0) throw error;
      }
    }
  }

  /** The record of an image pulled from another site: its file checked, `available`. */
  savePulled(pulled: { name: string; repositoryId: number; size: bigint; sha256: string; checksum: string; at: number }): Promise<number> {
    return this.writing(async () =>
      this.db.transactional(async (em) =>
        Number(
          await em.insert(ImageEntity, {
            name: pulled.name,
            description: '',
            repositoryId: pulled.repositoryId,
            size: pulled.size.toString(),
            datasize: '0',
            checksum: pulled.checksum,
            permissions: '644',
            lastUpdate: String(pulled.at),
            softwareId: 0,
            type: MONOLITHIC,
            centerId: 0,
            groupId: 0,
            clientId: 0,
            disk: 0,
            partition: 0,
            code: 0,
            clonator: '',
            compressor: '',
            filesystem: '',
            revision: 1,
            sha256: pulled.sha256,
            state: 'available',
            damage: '',
            checkedAt: String(pulled.at),
          }),
        ),
      ),
    );
  }

  /** Change an image's record; false when there is no such image. */
  update(id: number, changes: ImageChanges): Promise<boolean> {
    return this.writing(() =>
      this.db.transactional(async (em) => {
        const image = await this.byId(em, id);
        if (!image) return false;
        em.assign(image, changes);
        await em.flush();
        return true;
      }),
    );
  }

  /** The centers an image is restricted to; empty = unrestricted. */
  async scopes(imageId: number): Promise<number[]> {
    const rows = await this.db.query<{ center_id: number }>('select center_id from image_scopes where image_id = ? order by center_id', [
      imageId,
    ]);
    return rows.map((r) => Number(r.center_id));
  }

  /** Replace an image's restriction in one transaction. */
  async setScopes(imageId: number, centers: number[]): Promise<void> {
    await this.db.transactional(async (em) => {
      await execute(em, 'delete from image_scopes where image_id = ?', [imageId]);
      for (const centerId of new Set(centers)) em.create(ImageScopeEntity, { image: imageId, centerId });
      await em.flush();
    });
  }
}
