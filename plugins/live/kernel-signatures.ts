import type { EntityManager } from '@mikro-orm/core';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Database, inject, injectable, type Logger, PluginConfig, PluginLog } from 'ogserve';
import { peSignature } from './authenticode';
import { LiveKernelEntity } from './entities/live-kernel';
import { liveDirectoryPattern } from './live-names';

/** Whether a live image's kernel is signed, as recorded: `signed` null when it has no kernel to read. */
export interface KernelSignature {
  signed: boolean | null;
  signer: string;
  issuer: string;
  problem: string;
}

/** The kernel file of an image. */
const kernelFile = 'ogvmlinuz';

/**
 * Whether each live image's kernel is signed (its Authenticode signature read: Secure Boot
 * PCs boot only a kernel that shim accepts). Recorded in `live_kernels` when an image is
 * added or installed, and read again whenever the kernel file changed (size, mtime): a
 * listing or a Secure Boot check always tells what the file is now.
 */
@injectable()
export class KernelSignatures {
  private readonly directory: string;
  private readonly known = new Map<string, { key: string; signature: KernelSignature }>();

  constructor(
    @inject(PluginConfig) config: { directory: string },
    @inject(Database) private readonly db: Database,
    @inject(PluginLog) private readonly log: Logger,
  ) {
    this.directory = config.directory;
  }

  /** The image's kernel signature as recorded, read again (and recorded) when its file changed. */
  async of(image: string, em?: EntityManager): Promise<KernelSignature> {
    if (!liveDirectoryPattern.test(image)) return { signed: null, signer: '', issuer: '', problem: 'not a live image name' };
    const file = path.join(this.directory, image, kernelFile);
    const info = await stat(file).catch(() => null);
    const key = info?.isFile() ? `${info.size}:${info.mtimeMs}:${info.ino}` : 'none';
    const cached = this.known.get(image);
    if (cached?.key === key) return cached.signature;
    if (!info?.isFile()) {
      const none = { signed: null, signer: '', issuer: '', problem: `no ${kernelFile}` };
      this.known.set(image, { key, signature: none });
      return none;
    }
    const row = await this.db.unit(em).findOne(LiveKernelEntity, { directory: image });
    if (row && Number(row.size) === info.size && Number(row.mtime) === Math.trunc(info.mtimeMs)) {
      const signature = { signed: row.signed, signer: row.signer, issuer: row.issuer, problem: row.problem };
      this.known.set(image, { key, signature });
      return signature;
    }
    return this.record(image);
  }

  /** Read the image's kernel now and record what it is (at `/live/add` and `live install`). */
  async record(image: string): Promise<KernelSignature> {
    const file = path.join(this.directory, image, kernelFile);
    const info = await stat(file).catch(() => null);
    if (!info?.isFile()) return { signed: null, signer: '', issuer: '', problem: `no ${kernelFile}` };
    const read = await peSignature(file);
    const signature: KernelSignature = {
      signed: read.signed,
      signer: (read.signer ?? '').slice(0, 255),
      issuer: (read.issuer ?? '').slice(0, 255),
      problem: (read.problem ?? '').slice(0, 255),
    };
    await this.db
      .transactional(async (em) => {
        await em.nativeDelete(LiveKernelEntity, { directory: image });
        await em.insert(LiveKernelEntity, {
          directory: image,
          ...signature,
          size: String(info.size),
          mtime: String(Math.trunc(info.mtimeMs)),
        });
      })
      .catch((error: Error) => this.log.warn({ err: error, image }, `kernel signature not recorded: ${error.message}`));
    this.known.set(image, { key: `${info.size}:${info.mtimeMs}:${info.ino}`, signature });
    return signature;
  }
}
