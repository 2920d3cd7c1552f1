import { existsSync, statSync } from 'node:fs';
import type { RequestListener, ServerResponse } from 'node:http';
import path from 'node:path';
import sirv from 'sirv';
import { ErrorCode, HttpError, StartupError } from '../errors';
import { acceptedEncodings } from './accept-encoding';
import { sendError } from './reply';

export interface StaticOptions {
  /**
   * Paths under the prefix (e.g. `/assets/app-3FQ2XK7A.js`) whose names carry a content hash:
   * served with a year of `immutable` caching. Every other file is revalidated on each use.
   */
  immutable?: RegExp;
  /** `GET /` redirects to this mount: the site's home page. At most one mount may say so. */
  home?: boolean;
}

export interface StaticMount extends StaticOptions {
  owner: string;
  /** `/console`, `/console/plugins/hello`: no trailing slash. */
  prefix: string;
  dir: string;
}

const prefixPattern = /^(\/[a-z0-9][a-z0-9._-]*)+$/;

/**
 * The static file trees plugins mount (`ctx.files`). They are the only paths served without
 * `Authorization`, and only to GET and HEAD: pages and scripts hold no data, and the data
 * they show comes from the API with the caller's key.
 */
export class StaticMounts {
  readonly mounts: StaticMount[] = [];

  add(owner: string, prefix: string, dir: string, options: StaticOptions = {}): void {
    if (!prefixPattern.test(prefix))
      throw new StartupError(`plugin '${owner}' mounts files at '${prefix}': a prefix is /lower-case/segments without a trailing slash`);
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      throw new StartupError(`plugin '${owner}' mounts files at ${prefix} from ${dir}, which is not a directory`);
    const taken = this.mounts.find((m) => m.prefix === prefix);
    if (taken) throw new StartupError(`files at ${prefix} of plugin '${owner}' are already mounted by plugin '${taken.owner}'`);
    const home = options.home ? this.mounts.find((m) => m.home) : undefined;
    if (home) throw new StartupError(`plugin '${owner}' and plugin '${home.owner}' both claim the home page`);
    this.mounts.push({ owner, prefix, dir: path.resolve(dir), ...options });
  }
}

/** Headers of every static file: nothing from other origins, no sniffing, no framing. */
const securityHeaders = {
  'Content-Security-Policy':
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/**
 * A path that names a precompressed copy (`app.js.br`, `index.html.gz`). The copies are how a
 * file is sent to a client that accepts the encoding, not files of their own: asked for by
 * name, one would come back as the original's type with an encoding the client may not
 * read. Decoded and without trailing slashes, as sirv looks paths up.
 */
function namesEncodedCopy(pathname: string): boolean {
  let decoded = pathname;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    // Malformed escapes: sirv finds no file for them either.
  }
  return /\.(br|gz)\/*$/i.test(decoded);
}

/**
 * The front door of the REST listener: GET and HEAD under a mount's prefix are answered from
 * its files (a miss is a 404, never the API), `GET /` redirects to the home mount, and every
 * other request goes on to `api`, which checks `Authorization`. A file's brotli or gzip copy
 * is sent only to a client whose Accept-Encoding accepts that encoding, and never by its own name.
 */
export function withStaticFiles(mounts: StaticMount[], api: RequestListener, maxResponseBytes: number): RequestListener {
  if (mounts.length === 0) return api;
  // Longest prefix first, so /console/plugins/hello wins over /console.
  const served = [...mounts]
    .sort((a, b) => b.prefix.length - a.prefix.length)
    .map((mount) => ({
      prefix: mount.prefix,
      serve: sirv(mount.dir, {
        etag: true,
        gzip: true,
        brotli: true,
        setHeaders(res, pathname) {
          for (const [name, value] of Object.entries(securityHeaders)) res.setHeader(name, value);
          res.setHeader('Cache-Control', mount.immutable?.test(pathname) ? 'public, max-age=31536000, immutable' : 'no-cache');
        },
      }),
    }));
  const home = mounts.find((m) => m.home);
  const notFound = (res: ServerResponse, pathname: string) =>
    sendError(res, new HttpError(404, ErrorCode.notFound, `no file at ${pathname}`), maxResponseBytes);

  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return api(req, res);
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const pathname = query < 0 ? url : url.slice(0, query);
    if (pathname === '/' && home) return redirect(res, `${home.prefix}/`);
    const mount = served.find((m) => pathname === m.prefix || pathname.startsWith(`${m.prefix}/`));
    if (!mount) return api(req, res);
    // Relative asset paths resolve against the directory, so the bare prefix gets its slash.
    if (pathname === mount.prefix) return redirect(res, `${mount.prefix}/`);
    if (namesEncodedCopy(pathname)) return notFound(res, pathname);
    // sirv looks for the bare words in the header: it gets only the encodings really accepted.
    const accepted = acceptedEncodings(req.headers['accept-encoding']);
    req.headers['accept-encoding'] = [accepted.br && 'br', accepted.gzip && 'gzip'].filter(Boolean).join(', ');
    // sirv misreads Range (`bytes=5-1` threw out of the listener and stopped the process, `bytes=-1`
    // sent two bytes): pages and scripts need no part of a file, and RFC 9110 lets a server ignore it.
    delete req.headers.range;
    req.url = url.slice(mount.prefix.length);
    mount.serve(req, res, () => notFound(res, pathname));
  };
}

function redirect(res: ServerResponse, location: string): void {
  res.writeHead(302, { Location: location, 'Content-Length': '0', 'Cache-Control': 'no-cache' }).end();
}
