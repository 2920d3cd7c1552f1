import { type BigIntStats, close, constants, createReadStream, fstat, open } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { ErrorCode, HttpError, type Logger, Reply } from 'ogserve';
import { fileAnswer, versionOf } from './file-answer';
import type { HandedEnd, NginxHandoff } from './handoff';
import type { TransferSlots } from './transfer-slots';

/**
 * One segment of a served file's path: the characters ogLive, kernel, GRUB and image file names
 * use (`@` marks an image's kept version, `win10@v3.img`). No `.` or `..`, no dot file, and no
 * `%`, `?` or `#`: the path is decoded once, and what is left must be plain (a double-encoded
 * `..` is refused here, never decoded a second time).
 */
const segment = /^[A-Za-z0-9_+~-][A-Za-z0-9._+~@-]{0,254}$/;

/** How long a PC refused for the transfer cap waits before it asks again (iPXE and curl honour Retry-After). */
const retryAfterS = 5;

/** Bytes read from a file at a time: what a transfer must hand on within its stall time. */
const chunkBytes = 64 * 1024;

const openFile = promisify(open);
const closeFile = promisify(close);
const fileStats = promisify(fstat) as (fd: number, options: { bigint: true }) => Promise<BigIntStats>;

/** A body sent (a 200 or 206), once its answer ended or was cut off. */
export interface Transfer {
  /** The path under the served prefix. */
  file: string;
  bytes: number;
  ms: number;
  cutShort: boolean;
  /** Cut for standing still longer than its stall time. */
  stalled: boolean;
}

/** A folder of served files, and what may refuse one of its files (the live images' manifests). */
export interface ServedFolder {
  dir: string;
  /** Why the file at this real path (links followed) must not be served, or undefined. */
  refusal?: (file: string) => Promise<string | undefined>;
  /**
   * Headers the answers for the file at this real path carry besides the file's own, from what
   * the folder's owner knows of it (an image's sha256 from its record: `Repr-Digest`).
   */
  headers?: (file: string) => Promise<Record<string, string> | undefined>;
}

/**
 * What a caller hears of one body while it goes, besides its end (`Transfer`): the per-PC
 * bars of an image restore. `started` before the first byte, with the part of the file the
 * body holds; `moved` with the bytes handed on so far, as they move (at most once a chunk).
 */
export interface TransferWatch {
  /** `toldAtEnd`: the bytes are told once, when the body ended (nginx sends them), not as they move. */
  started?(body: { file: string; size: number; start: number; end: number; toldAtEnd: boolean }): void;
  moved?(bytes: number): void;
}

/** What the files are called in answers, and the key that limits their transfers at once. */
export interface FilesNamed {
  /** `boot file`, `image file`. */
  what: string;
  /** `boot.max_transfers`. */
  limitKey: string;
}

/**
 * Files PCs fetch over HTTP: those under the given folders (the first that has a path wins),
 * with ETag and Last-Modified (304), Range and If-Range (206, 416), HEAD; never a listing,
 * never a file whose real path (symlinks followed) is outside its folder, nor one its folder
 * refuses. Bodies go out in the slots of `slots` (503 when none is free).
 */
export class FolderFiles {
  private readonly roots: ServedFolder[];

  constructor(
    folders: readonly ServedFolder[],
    private readonly slots: TransferSlots,
    private readonly log: Logger,
    private readonly named: FilesNamed,
    /** The nginx in front that sends the bytes (transfers.handoff), or none: ogserve sends them. */
    private readonly nginx?: NginxHandoff,
  ) {
    // Looked up when asked (ogLive images come and go), not listed once at start.
    this.roots = folders.map((f) => ({ ...f, dir: path.resolve(f.dir) }));
  }

  /**
   * The answer to `raw` (the path after the served prefix, as the request wrote it); an
   * HttpError when it is not served. `ended` hears of each body sent once its answer ended or
   * was cut off; `watch`, of the body while it goes.
   */
  async answer(req: IncomingMessage, raw: string, ended: (transfer: Transfer) => void, watch?: TransferWatch): Promise<Reply> {
    const { what, limitKey } = this.named;
    const file = relativePath(raw, what);
    const held = await this.rootHolding(file);
    if (!held) throw new HttpError(404, ErrorCode.notFound, `no ${what} at ${file}`);
    const { root, real } = held;
    // A PC never boots a damaged image: iPXE shows the error and goes on to its next boot device.
    const refused = await root.refusal?.(real);
    if (refused) throw new HttpError(500, 'file_damaged', `${file} is not served: ${refused}`);
    const extra = await root.headers?.(real);
    if (this.nginx) return this.handOff(this.nginx, req, file, real, extra, ended, watch);
    // Opened once: the size and validators in the head are those of the bytes the body reads.
    // A plain descriptor: a stream over a FileHandle reads through promises, a third slower.
    const fd = await openFile(real, 'r').catch(() => {
      throw new HttpError(404, ErrorCode.notFound, `no ${what} at ${file}`);
    });
    let answer: ReturnType<typeof fileAnswer>;
    try {
      answer = fileAnswer(req.method ?? 'GET', req.headers, versionOf(await fileStats(fd, { bigint: true })));
      if (extra) answer.headers = { ...extra, ...answer.headers };
    } catch (error) {
      await closeFile(fd);
      throw error;
    }
    const { body } = answer;
    if (!body) {
      await closeFile(fd);
      return Reply.stream(answer.status, answer.headers, (res) => res.end());
    }
    if (this.slots.full) {
      await closeFile(fd);
      const message = `${this.slots.inFlight} ${what} transfers under way (${limitKey}); try again in ${retryAfterS} s`;
      throw new HttpError(503, 'busy', message, undefined, { 'Retry-After': String(retryAfterS) });
    }
    const declared = body.end - body.start + 1;
    const size = answer.size;
    return Reply.stream(answer.status, answer.headers, (res) => {
      const bytes = createReadStream('', { fd, start: body.start, end: body.end, highWaterMark: chunkBytes });
      // A connection gone while the file was opened would never say so again: nothing to send.
      if (res.socket === null || res.socket.destroyed) return void bytes.destroy();
      watch?.started?.({ file, size, start: body.start, end: body.end, toldAtEnd: false });
      this.slots.flow(
        bytes,
        res,
        ({ bytes, ms, stalled }) =>
          // Cut short: fewer bytes than the head declared, or stuck before the PC took the last.
          // Not whether the answer ended: a PC may close the connection on its last byte.
          ended({ file, bytes, ms, cutShort: bytes < declared || stalled, stalled }),
        (error) => this.log.warn({ err: error, file }, `${what} transfer failed: ${error.message}`),
        watch?.moved,
      );
    });
  }

  /**
   * The answer that has nginx send the file at `real` (checked here: path, folder, refusal)
   * with its own Range, validators and HEAD, on its loopback log telling how it went. The
   * part the body holds is worked out here too, for `watch`; nginx's log line gives the bytes.
   */
  private async handOff(
    nginx: NginxHandoff,
    req: IncomingMessage,
    file: string,
    real: string,
    extra: Record<string, string> | undefined,
    ended: (transfer: Transfer) => void,
    watch: TransferWatch | undefined,
  ): Promise<Reply> {
    const stats = await stat(real, { bigint: true }).catch(() => {
      throw new HttpError(404, ErrorCode.notFound, `no ${this.named.what} at ${file}`);
    });
    const method = req.method ?? 'GET';
    let body: { start: number; end: number } | undefined;
    try {
      body = fileAnswer(method, req.headers, versionOf(stats)).body;
    } catch {
      // An unsatisfiable Range: nginx answers the 416 itself.
    }
    const size = Number(stats.size);
    let told = false;
    const tell = () => {
      if (told || !body) return;
      told = true;
      watch?.started?.({ file, size, start: body.start, end: body.end, toldAtEnd: true });
    };
    const redirect = nginx.redirect(real, (end: HandedEnd) => {
      const sent = end.status === 200 || end.status === 206;
      // A HEAD, or a 304 or 416 nginx's validators decided, moved nothing; a body told begun
      // ends, cut short, when nginx sent none of it (or never got the file to send).
      if (method !== 'GET' || (!sent && !told)) return;
      body ??= { start: 0, end: size - 1 };
      tell();
      watch?.moved?.(end.bytes);
      const declared = end.status === 200 ? size : body.end - body.start + 1;
      ended({ file, bytes: end.bytes, ms: end.ms, cutShort: !sent || !end.complete || end.bytes < declared, stalled: false });
    });
    tell();
    return Reply.stream(200, { ...extra, 'X-Accel-Redirect': redirect }, (res) => {
      res.once('close', () => {
        if (!res.writableFinished) nginx.abandon(redirect);
      });
      res.end();
    });
  }

  /** The first folder holding `file` as a readable regular file whose real path stays inside it, and that path. */
  private async rootHolding(file: string): Promise<{ root: ServedFolder; real: string } | undefined> {
    for (const root of this.roots) {
      const [real, realRoot] = await Promise.all([realpath(path.join(root.dir, file)), realpath(root.dir)].map((p) => p.catch(() => null)));
      if (!real || !realRoot || !real.startsWith(realRoot + path.sep)) continue;
      const readable = await access(real, constants.R_OK).then(
        () => true,
        () => false,
      );
      if (readable && (await stat(real).catch(() => null))?.isFile()) return { root, real };
    }
    return undefined;
  }
}

/** The decoded path under the served prefix, every segment plain; a 400 otherwise. */
export function relativePath(raw: string, what: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    decoded = '';
  }
  const segments = decoded.split('/');
  if (decoded.length > 1024 || !segments.every((s) => segment.test(s)))
    throw new HttpError(400, ErrorCode.invalidField, `'${raw.slice(0, 100)}' is not a ${what} path`);
  return segments.join('/');
}
