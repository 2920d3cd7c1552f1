import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Clock, ErrorCode, badRequest, inject, injectable, type Logger, PluginEventBus, type PluginEvents, PluginLog } from 'ogserve';
import { isImageName } from '../../agents';
import { type Inventory, Inventory as InventoryToken } from '../../inventory';
import { ImagesClock } from '../clock';
import { fileInside } from '../files';
import { FileHasher } from '../integrity/hasher';
import { ImageStore } from '../store';
import { type SourceHead, SourceRefused, ask, headFields, refusalOf } from './http-source';

/** Where pulled files go, and how fast a pull may read (`repository.pull_max_bytes_per_s`; 0: as fast as it comes). */
export interface PullSettings {
  directory: string;
  maxBytesPerS: number;
}
export const PullSettings = Symbol('PullSettings');

export interface PullRequest {
  url: string;
  name: string;
  repositoryId?: number;
}

/** A pull as GET /image/pulls lists it. */
export interface PullView {
  name: string;
  url: string;
  state: 'running' | 'done' | 'failed';
  bytes: number;
  size: number;
  error: string | null;
  started: string;
  ended: string | null;
  image: number | null;
}

/** What a partial file was fetched against: a resume must find the same. */
interface PartMeta {
  url: string;
  etag: string;
  sha256: string;
  size: number;
}

/** Tries in a row that moved no byte before a pull gives up (it can be asked again: it resumes). */
const idleTries = 5;

declare module 'ogserve' {
  interface CommandLineParts {
    /** `ogserve image pull`: the puller, on the config's repository and database. */
    imagePuller: typeof ImagePuller;
  }
}

/**
 * Images from another site's ogserve (`/images/files/<name>.img`): fetched into
 * `<repository>/.pull/<name>.img.part` with Range resume (If-Range on the source's ETag, so a
 * file that changed at the source starts again from byte 0), hashed when whole, and only when
 * its sha256 is the one the source's record names (`Repr-Digest`) moved into place with a
 * record of its own, `available`. A partial or different file is never marked complete: a
 * pull cut off (killed, the network gone) resumes where it stopped when asked again; one
 * whose bytes differ from the source's record is refused and its partial file removed.
 */
@injectable()
export class ImagePuller {
  private readonly pulls = new Map<string, PullView>();

  constructor(
    @inject(ImageStore) private readonly store: ImageStore,
    @inject(InventoryToken) private readonly inventory: Inventory,
    @inject(FileHasher) private readonly hasher: FileHasher,
    @inject(PullSettings) private readonly settings: PullSettings,
    @inject(PluginEventBus) private readonly events: PluginEvents,
    @inject(ImagesClock) private readonly clock: Clock,
    @inject(PluginLog) private readonly log: Logger,
  ) {}

  /** Check a pull request; the repository the image will belong to. Throws badRequest naming the field. */
  async check(request: PullRequest): Promise<{ url: URL; repositoryId: number }> {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      throw badRequest(ErrorCode.invalidField, `'${request.url.slice(0, 200)}' is not a URL`, 'url');
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.pathname.endsWith('.img'))
      throw badRequest(ErrorCode.invalidField, 'url: an http:// or https:// URL of an image file, .../images/files/<name>.img', 'url');
    if (!isImageName(request.name))
      throw badRequest(ErrorCode.invalidField, `'${request.name.slice(0, 60)}' is not a valid image name`, 'name');
    if (await this.store.named(request.name)) throw badRequest(ErrorCode.conflict, `an image named '${request.name}' exists here`, 'name');
    if (this.pulls.get(request.name)?.state === 'running')
      throw badRequest(ErrorCode.conflict, `image '${request.name}' is being pulled already`, 'name');
    return { url, repositoryId: await this.repositoryFor(request.repositoryId) };
  }

  /** Start a pull and answer at once (POST /image/pull); GET /image/pulls follows it. */
  async start(request: PullRequest): Promise<PullView> {
    const checked = await this.check(request);
    const view = this.begin(request);
    void this.run(request.name, checked.url, checked.repositoryId, view).catch(() => undefined);
    return { ...view };
  }

  /** Pull and wait for the end (`ogserve image pull`): the image's id, or the refusal thrown. */
  async pull(request: PullRequest, progress?: (view: PullView) => void): Promise<number> {
    const checked = await this.check(request);
    const view = this.begin(request);
    const timer = progress ? setInterval(() => progress({ ...view }), 2000) : undefined;
    try {
      return await this.run(request.name, checked.url, checked.repositoryId, view);
    } finally {
      clearInterval(timer);
    }
  }

  list(): PullView[] {
    return [...this.pulls.values()].map((v) => ({ ...v })).reverse();
  }

  private begin(request: PullRequest): PullView {
    const view: PullView = {
      name: request.name,
      url: request.url,
      state: 'running',
      bytes: 0,
      size: 0,
      error: null,
      started: new Date(this.clock.now()).toISOString(),
      ended: null,
      image: null,
    };
    this.pulls.delete(request.name);
    this.pulls.set(request.name, view);
    return view;
  }

  private async run(name: string, url: URL, repositoryId: number, view: PullView): Promise<number> {
    try {
      const id = await this.fetchAndKeep(name, url, repositoryId, view);
      Object.assign(view, { state: 'done', image: id, ended: new Date(this.clock.now()).toISOString() });
      return id;
    } catch (error) {
      const message = (error as Error).message;
      Object.assign(view, { state: 'failed', error: message, ended: new Date(this.clock.now()).toISOString() });
      this.log.warn({ image: name, url: url.href, err: message }, `image '${name}' not pulled from ${url.href}: ${message}`);
      throw error;
    }
  }

  private async fetchAndKeep(name: string, url: URL, repositoryId: number, view: PullView): Promise<number> {
    const dir = path.join(path.resolve(this.settings.directory), '.pull');
    await mkdir(dir, { recursive: true });
    const part = path.join(dir, `${name}.img.part`);
    const metaFile = `${part}.json`;
    // What the part was fetched against: the next GET asks for the rest of that same file (If-Range).
    const meta = await readMeta(metaFile);
    let head: SourceHead | undefined = meta?.url === url.href ? meta : undefined;
    let have = head
      ? await stat(part).then(
          (s) => s.size,
          () => 0,
        )
      : 0;
    if (head && have > head.size) have = 0;
    if (have === 0) await writeFile(part, '');
    if (head && have > 0) this.log.info({ image: name, from: have }, `image '${name}' pull resumed at byte ${have} of ${head.size}`);
    view.bytes = have;
    let idle = 0;
    while (!head || have < head.size) {
      const before = have;
      try {
        const got = await this.fetchRange(url, part, metaFile, have, head, (bytes) => (view.bytes = bytes));
        head = got.head;
        have = got.have;
        view.size = head.size;
      } catch (error) {
        if (error instanceof SourceRefused) throw error;
        have = await stat(part).then(
          (s) => s.size,
          () => 0,
        );
        view.bytes = have;
        this.log.warn(
          { image: name, err: (error as Error).message, at: have },
          `image '${name}' pull cut at byte ${have}: ${(error as Error).message}`,
        );
      }
      idle = have > before || (head !== undefined && have === head.size) ? 0 : idle + 1;
      if (idle >= idleTries)
        throw new Error(`the source sent nothing in ${idleTries} tries; the ${have} bytes fetched are kept: pull again to resume`);
      if (idle > 0) await sleep(Math.min(30_000, 1000 * 2 ** idle));
    }
    // Whole: only the bytes the source's record names become an image.
    const hashed = await this.hasher.hash(part, { withMd5: true });
    if (hashed.size !== head.size || hashed.sha256 !== head.sha256) {
      await rm(part, { force: true });
      await rm(metaFile, { force: true });
      throw new SourceRefused(
        `the bytes fetched differ from the source's record (sha256 ${hashed.sha256}, ${hashed.size} bytes; the source says ${head.sha256}, ${head.size} bytes): not kept; pull again`,
      );
    }
    const target = fileInside(this.settings.directory, name, '.img');
    const sum = fileInside(this.settings.directory, name, '.img.full.sum');
    if (!target || !sum) throw new SourceRefused(`'${name}' does not stay inside the repository directory`);
    if (await this.store.named(name))
      throw new SourceRefused(`an image named '${name}' was made here meanwhile: the pulled file stays in ${part}`);
    // The agents' UNICAST restore compares its copy with the md5 in .full.sum: written from the bytes checked here.
    await writeFile(sum, `${hashed.md5}\n`);
    await rename(part, target);
    await rm(metaFile, { force: true });
    const now = Math.floor(this.clock.now() / 1000);
    const id = await this.store.savePulled({
      name,
      repositoryId,
      size: BigInt(hashed.size),
      sha256: hashed.sha256,
      checksum: hashed.md5!,
      at: now,
    });
    this.log.info(
      { image: name, id, url: url.href, bytes: hashed.size },
      `image '${name}' pulled from ${url.href} and checked (sha256 ${hashed.sha256})`,
    );
    await this.events.emit('image.available', { image: id, name, sha256: hashed.sha256, size: hashed.size });
    return id;
  }

  /**
   * One GET from byte `from` to the end, appended to `part` (a 206 that starts there), or the
   * whole file from byte 0 when the source's file changed (a 200: If-Range did not hold) or
   * its record did (another Repr-Digest). What the answer says of the file is written to
   * `metaFile` before its first byte, so a pull killed meanwhile resumes against it.
   * Resolves with the bytes the part holds and the file's head.
   */
  private async fetchRange(
    url: URL,
    part: string,
    metaFile: string,
    from: number,
    known: SourceHead | undefined,
    moved: (bytes: number) => void,
  ): Promise<{ have: number; head: SourceHead }> {
    const headers: Record<string, string> = from > 0 && known ? { Range: `bytes=${from}-`, 'If-Range': known.etag } : {};
    const res = await ask(url, 'GET', headers);
    if (res.statusCode !== 200 && res.statusCode !== 206) throw new SourceRefused(`the source answered ${await refusalOf(res)}`);
    let head: SourceHead;
    try {
      head = headFields(res);
    } catch (error) {
      res.destroy();
      throw error;
    }
    let start = 0;
    if (res.statusCode === 206) {
      start = Number(/^bytes (\d+)-/.exec(String(res.headers['content-range'] ?? ''))?.[1]);
      if (start !== from || head.sha256 !== known?.sha256 || head.size !== known.size) {
        // The same file but another record (or bytes from elsewhere than asked): from byte 0 again.
        res.destroy();
        await truncate(part, 0);
        await writeMeta(metaFile, { url: url.href, ...head });
        return { have: 0, head: { ...head, etag: '' } };
      }
    } else if (from > 0) {
      this.log.info({ url: url.href }, "the source's file changed: the pull starts again from byte 0");
    }
    await writeMeta(metaFile, { url: url.href, ...head });
    const out = createWriteStream(part, { flags: start > 0 ? 'a' : 'w' });
    let have = start;
    const started = Date.now();
    const rate = this.settings.maxBytesPerS;
    // Paused while the file catches up and while the pull is ahead of its rate; resumed when neither holds.
    let draining = false;
    let throttled = false;
    const resume = () => {
      if (!draining && !throttled) res.resume();
    };
    try {
      await new Promise<void>((resolve, reject) => {
        res.on('data', (chunk: Buffer) => {
          have += chunk.length;
          moved(have);
          if (!out.write(chunk)) {
            draining = true;
            res.pause();
            out.once('drain', () => {
              draining = false;
              resume();
            });
          }
          if (rate > 0) {
            const ahead = ((have - start) * 1000) / rate - (Date.now() - started);
            if (ahead > 20 && !throttled) {
              throttled = true;
              res.pause();
              setTimeout(() => {
                throttled = false;
                resume();
              }, ahead);
            }
          }
        });
        res.once('end', resolve);
        res.once('error', reject);
        // Cut before its end (the source stopped, the network went): what came is kept to resume from.
        res.once('close', () => {
          if (!res.complete) reject(new Error('the source closed the connection before the end'));
        });
        out.once('error', reject);
      });
    } finally {
      await new Promise<void>((resolve) => out.end(resolve));
    }
    return { have: await stat(part).then((s) => s.size), head };
  }

  /** The repository a pulled image belongs to: the one named, else the only one there is. */
  private async repositoryFor(id: number | undefined): Promise<number> {
    if (id !== undefined) {
      if (!(await this.inventory.repository(id))) throw badRequest(ErrorCode.unknownId, `no repository with id ${id}`, 'repository_id');
      return id;
    }
    const all = await this.inventory.repositories();
    if (all.length === 1) return all[0]!.id;
    throw badRequest(
      ErrorCode.missingField,
      all.length === 0
        ? "'repository_id': add a repository first (POST /repository/add)"
        : "'repository_id' is required: there are several repositories",
      'repository_id',
    );
  }
}

async function readMeta(file: string): Promise<PartMeta | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as PartMeta;
  } catch {
    return undefined;
  }
}

function writeMeta(file: string, meta: PartMeta): Promise<void> {
  return writeFile(file, JSON.stringify(meta));
}
