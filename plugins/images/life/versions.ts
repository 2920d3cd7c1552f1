import type { EntityManager } from '@mikro-orm/core';
import { access } from 'node:fs/promises';
import { type Clock, Database, inject, injectable, type Logger, PluginLog } from 'ogserve';
import { ImagesClock } from '../clock';
import type { Image } from '../entities/image';
import { type ImageVersion, ImageVersionEntity } from '../entities/image-version';
import { fileInside } from '../files';
import { ImageStore } from '../store';
import { moveFiles, removeFiles, versionBase } from './files';

/** Where the files are, and how many versions of a name are kept (`repository.keep_versions`). */
export interface VersionSettings {
  directory: string;
  keepVersions: number;
}
export const VersionSettings = Symbol('VersionSettings');

/** A version moved aside for a create that has not stored its answer yet. */
interface MovedAside {
  imageId: number;
  name: string;
  version: number;
}

/**
 * Kept versions of an image (`repository.keep_versions`): when an image is created again, its
 * file (and companions) is moved to `<name>@v<revision>.img` just before the agent is asked to
 * write the new one, with what its record said of it; the create's stored answer keeps it (and
 * drops versions past the count), a create that stored nothing (refused, failed, timed out,
 * never sent) puts it back. A version is restored by `version` in POST /image/restore.
 */
@injectable()
export class ImageVersions {
  private readonly aside = new Map<string, MovedAside>();

  constructor(
    @inject(Database) private readonly db: Database,
    @inject(ImageStore) private readonly store: ImageStore,
    @inject(VersionSettings) private readonly settings: VersionSettings,
    @inject(ImagesClock) private readonly clock: Clock,
    @inject(PluginLog) private readonly log: Logger,
  ) {}

  /** A create of `image` (an image that exists) is about to be sent to `ip`: keep its file as a version. */
  async beforeCreate(ip: string, image: Image): Promise<void> {
    if (this.settings.keepVersions === 0 || this.aside.has(ip)) return;
    const { directory } = this.settings;
    const current = fileInside(directory, image.name, '.img');
    if (
      !current ||
      !(await access(current).then(
        () => true,
        () => false,
      ))
    )
      return;
    const taken = new Set((await this.list(image.id)).map((v) => v.version));
    let version = Math.max(1, image.revision);
    while (taken.has(version)) version++;
    await moveFiles(directory, image.name, directory, versionBase(image.name, version));
    await this.db.transactional(async (em) => {
      await em.insert(ImageVersionEntity, {
        imageId: image.id,
        version,
        size: image.size,
        datasize: image.datasize,
        checksum: image.checksum,
        sha256: image.sha256,
        state: image.state === 'hashing' ? 'available' : image.state,
        damage: image.damage,
        checkedAt: image.checkedAt,
        lastUpdate: image.lastUpdate,
        keptAt: String(Math.floor(this.clock.now() / 1000)),
        clonator: image.clonator,
        compressor: image.compressor,
        filesystem: image.filesystem,
      });
    });
    this.aside.set(ip, { imageId: image.id, name: image.name, version });
    this.log.info(
      { image: image.name, version },
      `image '${image.name}' revision ${version} kept as ${versionBase(image.name, version)}.img`,
    );
  }

  /** The create from `ip` stored its answer: the version stays, and versions past repository.keep_versions go. */
  async kept(ip: string, em?: EntityManager): Promise<void> {
    const moved = this.aside.get(ip);
    if (!moved) return;
    this.aside.delete(ip);
    await this.prune(moved.imageId, moved.name, em);
  }

  /** The create from `ip` ended without storing its answer: the kept file goes back in place. */
  async ended(ip: string, em?: EntityManager): Promise<void> {
    const moved = this.aside.get(ip);
    if (!moved) return;
    this.aside.delete(ip);
    const { directory } = this.settings;
    await this.db.unit(em).nativeDelete(ImageVersionEntity, { imageId: moved.imageId, version: moved.version });
    await moveFiles(directory, versionBase(moved.name, moved.version), directory, moved.name);
    this.log.info({ image: moved.name, version: moved.version }, `image '${moved.name}' put back: the create stored nothing`);
  }

  /** An image's kept versions, newest first. */
  list(imageId: number, em?: EntityManager): Promise<ImageVersion[]> {
    return this.db.unit(em).find(ImageVersionEntity, { imageId }, { orderBy: { version: 'desc' } });
  }

  byVersion(imageId: number, version: number, em?: EntityManager): Promise<ImageVersion | null> {
    return this.db.unit(em).findOne(ImageVersionEntity, { imageId, version });
  }

  /** Every kept version (the periodic check). */
  all(em?: EntityManager): Promise<ImageVersion[]> {
    return this.db.unit(em).find(ImageVersionEntity, {}, { orderBy: { imageId: 'asc', version: 'asc' } });
  }

  /** Record what a check found of a version's file. */
  async setIntegrity(
    id: number,
    found: { state: ImageVersion['state']; damage: string; sha256?: string; checkedAt: number },
    em?: EntityManager,
  ): Promise<void> {
    await this.db
      .unit(em)
      .nativeUpdate(
        ImageVersionEntity,
        { id },
        { state: found.state, damage: found.damage, checkedAt: String(found.checkedAt), ...(found.sha256 ? { sha256: found.sha256 } : {}) },
      );
  }

  /** Drop the oldest versions past repository.keep_versions: their files, then their rows. */
  private async prune(imageId: number, name: string, em?: EntityManager): Promise<void> {
    const versions = await this.list(imageId);
    for (const old of versions.slice(this.settings.keepVersions)) {
      await removeFiles(this.settings.directory, versionBase(name, old.version));
      await this.store.writing(() => this.db.unit(em).nativeDelete(ImageVersionEntity, { id: old.id }));
      this.log.info({ image: name, version: old.version }, `image '${name}' version ${old.version} dropped (repository.keep_versions)`);
    }
  }
}
