import { readFile } from 'node:fs/promises';
import { type Clock, inject, injectable, type Logger, PluginEventBus, type PluginEvents, PluginLog } from 'ogserve';
import { ImagesClock } from '../clock';
import type { ImageState } from '../entities/image';
import { fileInside } from '../files';
import { ImageStore } from '../store';
import { type FileHash, FileHasher, HashError } from './hasher';
import './events';

/** The record as the checker reads it. */
export interface CheckedRecord {
  id: number;
  name: string;
  /** The file's bytes as recorded (0: not known). */
  size: bigint;
  sha256: string;
  state: ImageState;
  /** The agent's md5 of the file, hex ('' when it gave none). */
  checksum: string;
}

/** What a check found. */
export interface CheckResult {
  image: number;
  name: string;
  state: ImageState;
  /** Why it is damaged; '' otherwise. */
  damage: string;
  sha256: string;
  size: number;
  /** Whether the file is in repository.directory (an image kept on another repository is not). */
  held: boolean;
}

/** A kept version for the periodic check: what its record says, and where what is found goes. */
export interface VersionToCheck {
  record: CheckedRecord;
  version: number;
  save(found: Omit<CheckResult, 'image' | 'name'>): Promise<void>;
}

/** Where the images' files are, and the names a create is writing now. */
export interface CheckerSettings {
  directory: string;
  beingWritten(name: string): boolean;
}
export const CheckerSettings = Symbol('CheckerSettings');

/**
 * ogserve's own word on each image file: after a create it hashes the file (sha256, and md5
 * to hold the agent's `.full.sum` to), and a check (POST /image/check, the periodic one)
 * hashes it again and compares it with the record. A missing file, one whose size or
 * sha256 differs, makes the image `damaged` (announced; restores refused) until a check finds
 * it right again. An image whose file ogserve never held (sha256 unknown, no file) is not
 * damaged: it lives on another repository.
 */
@injectable()
export class ImageChecker {
  constructor(
    @inject(ImageStore) private readonly store: ImageStore,
    @inject(FileHasher) private readonly hasher: FileHasher,
    @inject(CheckerSettings) private readonly settings: CheckerSettings,
    @inject(PluginEventBus) private readonly events: PluginEvents,
    @inject(ImagesClock) private readonly clock: Clock,
    @inject(PluginLog) private readonly log: Logger,
  ) {}

  /**
   * An agent just wrote the image: hash it, and hold it to what the agent said (its size,
   * its md5). `reported` is the agent's size when its answer gave one.
   */
  async afterCreate(record: CheckedRecord, reported: bigint | undefined): Promise<CheckResult> {
    const file = this.fileOf(record.name);
    const hashed = await this.hashOrMissing(file, record.checksum !== '');
    if (!hashed) {
      this.log.info(
        { image: record.name },
        `${record.name}.img is not in repository.directory: not hashed (the image is kept on another repository)`,
      );
      return this.settle(record, { state: 'available', damage: '', sha256: '', size: Number(record.size), held: false });
    }
    const problems: string[] = [];
    if (reported !== undefined && reported > 0n && BigInt(hashed.size) !== reported)
      problems.push(`the agent said ${reported} bytes, the file has ${hashed.size}`);
    if (hashed.md5 !== undefined && hashed.md5 !== record.checksum.toLowerCase())
      problems.push(`the agent's md5 ${record.checksum.toLowerCase()} is not the file's (${hashed.md5})`);
    const damage = problems.join('; ');
    return this.settle(record, {
      state: damage ? 'damaged' : 'available',
      damage,
      sha256: hashed.sha256,
      size: hashed.size,
      held: true,
    });
  }

  /** Check one image's file against its record, and record what was found. */
  check(record: CheckedRecord): Promise<CheckResult> {
    return this.examine(record, record.name, (found, firstHash) => this.settle(record, found, firstHash));
  }

  /** Check a kept version's file (`<name>@v<n>.img`) against what its record says. */
  checkVersion(
    record: CheckedRecord,
    version: number,
    save: (found: Omit<CheckResult, 'image' | 'name'>) => Promise<void>,
  ): Promise<CheckResult> {
    return this.examine(record, `${record.name}@v${version}`, async (found) => {
      await save(found);
      if (found.state === 'damaged' && record.state !== 'damaged')
        this.log.warn(
          { image: record.name, version, reason: found.damage },
          `image '${record.name}' version ${version} is damaged: ${found.damage}`,
        );
      return { image: record.id, name: record.name, ...found };
    });
  }

  private async examine(
    record: CheckedRecord,
    base: string,
    settle: (found: Omit<CheckResult, 'image' | 'name'>, firstHash?: boolean) => Promise<CheckResult>,
  ): Promise<CheckResult> {
    if (this.settings.beingWritten(record.name))
      return {
        image: record.id,
        name: record.name,
        state: record.state,
        damage: 'being written by a create',
        sha256: record.sha256,
        size: Number(record.size),
        held: true,
      };
    const file = this.fileOf(base);
    const known = record.sha256 !== '';
    const hashed = await this.hashOrMissing(file, false);
    const recorded = { sha256: record.sha256, size: Number(record.size), held: hashed !== undefined };
    if (!hashed)
      return settle(known ? { ...recorded, state: 'damaged', damage: 'missing' } : { ...recorded, state: 'available', damage: '' });
    if (!known) {
      // Never hashed (recorded before ogserve hashed images, or imported): this hash is its record from now on.
      return settle({ state: 'available', damage: '', sha256: hashed.sha256, size: hashed.size, held: true }, true);
    }
    if (record.size > 0n && BigInt(hashed.size) !== record.size) {
      const how = BigInt(hashed.size) < record.size ? 'truncated' : 'grown';
      return settle({ ...recorded, state: 'damaged', damage: `${how}: the file has ${hashed.size} bytes, the record ${record.size}` });
    }
    if (hashed.sha256 !== record.sha256)
      return settle({
        ...recorded,
        state: 'damaged',
        damage: `changed: the file's sha256 is ${hashed.sha256}, the record's ${record.sha256}`,
      });
    return settle({ ...recorded, state: 'available', damage: '' });
  }

  /**
   * Check every image, then every kept version (`versions`: each with its image's name and a
   * way to record what was found), one after the other; a summary of what was found.
   */
  async checkAll(versions: VersionToCheck[] = []): Promise<{ checked: number; damaged: string[] }> {
    const damaged: string[] = [];
    let checked = 0;
    const one = async (label: string, run: () => Promise<CheckResult>) => {
      const result = await run().catch((error: Error) => {
        this.log.error({ err: error, image: label }, `image '${label}' not checked: ${error.message}`);
        return undefined;
      });
      if (!result) return;
      checked++;
      if (result.state === 'damaged') damaged.push(label);
    };
    for (const image of await this.store.list()) await one(image.name, () => this.check(image));
    for (const v of versions) await one(`${v.record.name}@v${v.version}`, () => this.checkVersion(v.record, v.version, v.save));
    const line = `${checked} image(s) checked: ${damaged.length ? `${damaged.length} damaged (${damaged.slice(0, 20).join(', ')})` : 'none damaged'}`;
    if (damaged.length) this.log.warn({ checked, damaged }, line);
    else this.log.info({ checked }, line);
    return { checked, damaged };
  }

  /** The agent's md5 from `<name>.img.full.sum`, lower case; undefined when there is none. */
  async fullSum(name: string): Promise<string | undefined> {
    const file = fileInside(this.settings.directory, name, '.img.full.sum');
    if (!file) return undefined;
    const text = await readFile(file, 'latin1').catch(() => '');
    return /^\s*([0-9a-fA-F]{32})\b/.exec(text)?.[1]?.toLowerCase();
  }

  private fileOf(name: string): string {
    const file = fileInside(this.settings.directory, name, '.img');
    if (!file) throw new Error(`'${name}' does not stay inside the repository directory`);
    return file;
  }

  private async hashOrMissing(file: string, withMd5: boolean): Promise<FileHash | undefined> {
    try {
      return await this.hasher.hash(file, { withMd5 });
    } catch (error) {
      if (error instanceof HashError && (error.code === 'ENOENT' || error.code === 'ENOTFILE')) return undefined;
      throw error;
    }
  }

  /** Write what was found and announce a change of state. */
  private async settle(record: CheckedRecord, found: Omit<CheckResult, 'image' | 'name'>, firstHash = false): Promise<CheckResult> {
    const result = { image: record.id, name: record.name, ...found };
    const checkedAt = Math.floor(this.clock.now() / 1000);
    const sizeKnown = found.held && (record.size === 0n || firstHash);
    await this.store.setIntegrity(record.id, {
      state: found.state,
      damage: found.damage,
      sha256: found.sha256,
      ...(sizeKnown ? { size: BigInt(found.size) } : {}),
      checkedAt,
    });
    if (found.state === 'damaged' && (record.state !== 'damaged' || firstHash)) {
      this.log.warn({ image: record.name, reason: found.damage }, `image '${record.name}' is damaged: ${found.damage}`);
      await this.events.emit('image.damaged', { image: record.id, name: record.name, reason: found.damage });
    } else if (found.state === 'available' && record.state !== 'available' && found.held) {
      await this.events.emit('image.available', { image: record.id, name: record.name, sha256: found.sha256, size: found.size });
    }
    return result;
  }
}
