import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import sirv from 'sirv';
import { ErrorCode, HttpError, type Logger } from 'ogserve';

/**
 * One segment of a boot file's path: the characters ogLive, kernel and GRUB file names use.
 * No `.` or `..`, no dot file, and no `%`, `?` or `#`: the path is decoded once, and what is
 * left must be plain (a double-encoded `..` is refused here, never decoded a second time).
 */
const segment = /^[A-Za-z0-9_+~-][A-Za-z0-9._+~-]{0,254}$/;

/** How long a PC refused for the transfer cap waits before it asks again (iPXE honours Retry-After). */
const retryAfterS = 5;

/** A transfer once its answer ended or was cut off. */
export interface Transfer {
  /** The path under /boot/files/. */
  file: string;
  status: number;
  bytes: number;
  ms: number;
  cutShort: boolean;
}

/** A folder of boot files, and what may refuse one of its files (the live images' manifests). */
export interface BootFolder {
  dir: string;
  /** Why the file at this real path (links followed) must not be served, or undefined. */
  refusal?: (file: string) => Promise<string | undefined>;
}

type Root = BootFolder & { serve: ReturnType<typeof sirv> };

/**
 * The boot files PCs fetch over HTTP: those under the given folders (the first that has a
 * path wins), sent by sirv (Range, ETag and Last-Modified, 304), never a listing, never a file
 * whose real path (symlinks followed) is outside its folder, nor one its folder refuses; at
 * most `maxTransfers` at once.
 */
export class BootFileServer {
  private readonly roots: Root[];
  private active = 0;

  /** Transfers under way (the metric). */
  get inFlight(): number {
    return this.active;
  }

  constructor(
    folders: readonly BootFolder[],
    private readonly maxTransfers: number,
    private readonly log: Logger,
  ) {
    // dev: files are looked up when asked (ogLive images come and go), not listed once at start.
    this.roots = folders.map((f) => ({ ...f, dir: path.resolve(f.dir), serve: sirv(f.dir, { dev: true, etag: true, extensions: [] }) }));
  }

  /**
   * Answer `raw` (the path after /boot/files/, as the request wrote it); an HttpError when it
   * is not served. `ended` hears of the transfer once its answer ended or was cut off.
   */
  async send(req: IncomingMessage, res: ServerResponse, raw: string, ended: (transfer: Transfer) => void): Promise<void> {
    const file = relativePath(raw);
    const held = await this.rootHolding(file);
    if (!held) throw new HttpError(404, ErrorCode.notFound, `no boot file at ${file}`);
    const { root, real } = held;
    // A PC never boots a damaged image: iPXE shows the error and goes on to its next boot device.
    const refused = await root.refusal?.(real);
    if (refused) throw new HttpError(500, 'file_damaged', `${file} is not served: ${refused}`);
    if (this.active >= this.maxTransfers) {
      const message = `${this.active} boot file transfers under way (boot.max_transfers); try again in ${retryAfterS} s`;
      throw new HttpError(503, 'busy', message, undefined, { 'Retry-After': String(retryAfterS) });
    }
    this.active++;
    const started = performance.now();
    const body = watchBody(res);
    res.once('close', () => {
      this.active--;
      const ms = Math.round(performance.now() - started);
      // Cut short: fewer bytes than the answer declared. Not whether the answer ended: a PC
      // may close the connection on its last byte, before the file stream says it is done.
      ended({ file, status: res.statusCode, bytes: body.sent, ms, cutShort: body.sent < body.declared });
    });
    // sirv pipes a file stream it gives no error handler: a file gone or unreadable between
    // the checks and its opening would be an uncaught error. It cuts this answer instead.
    res.once('pipe', (source: NodeJS.ReadableStream) =>
      source.once('error', (error: Error) => {
        this.log.warn({ err: error, file }, `boot file transfer failed: ${error.message}`);
        res.destroy();
      }),
    );
    // What sirv looks up: the checked path, without the query.
    req.url = `/${file}`;
    // sirv answers at once (its lookups are synchronous), or says the file went meanwhile.
    await new Promise<void>((resolve, reject) => {
      root.serve(req, res, () => reject(new HttpError(404, ErrorCode.notFound, `no boot file at ${file}`)));
      resolve();
    });
  }

  /** The first folder holding `file` as a readable regular file whose real path stays inside it, and that path. */
  private async rootHolding(file: string): Promise<{ root: Root; real: string } | undefined> {
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

/**
 * The body bytes written to `res` and the length its head declared: sirv gives its headers to
 * writeHead and pipes the file into the answer, so neither getHeader nor the socket's count
 * says what the body was.
 */
function watchBody(res: ServerResponse): { sent: number; declared: number } {
  const body = { sent: 0, declared: 0 };
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((...args: unknown[]) => {
    const headers = args.find((a): a is Record<string, unknown> => typeof a === 'object' && a !== null && !Array.isArray(a));
    body.declared = Number(headers?.['Content-Length'] ?? 0);
    return writeHead(...args);
  }) as ServerResponse['writeHead'];
  const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    body.sent += typeof chunk === 'string' ? Buffer.byteLength(chunk) : (chunk as Uint8Array).length;
    return write(chunk, ...rest);
  }) as ServerResponse['write'];
  return body;
}

/** The decoded path under /boot/files/, every segment plain; a 400 otherwise. */
function relativePath(raw: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    decoded = '';
  }
  const segments = decoded.split('/');
  if (decoded.length > 1024 || !segments.every((s) => segment.test(s)))
    throw new HttpError(400, ErrorCode.invalidField, `'${raw.slice(0, 100)}' is not a boot file path`);
  return segments.join('/');
}
