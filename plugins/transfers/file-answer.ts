import type { BigIntStats } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { HttpError } from 'ogserve';
import { type RangeAnswer, byteRange, ifRangeHolds } from './byte-range';

/** The version of a file, as a client may already hold it: its size and validators (RFC 9110 8.8). */
export interface FileVersion {
  size: number;
  etag: string;
  lastModified: string;
}

/** The head of a file's answer, and the bytes its body holds: none for a 304, a HEAD or an empty file. */
export interface FileAnswer {
  status: 200 | 206 | 304;
  /** The whole file's bytes. */
  size: number;
  headers: Record<string, string>;
  body?: { start: number; end: number };
}

/**
 * A strong entity tag, from the inode, size and modification time in nanoseconds (Apache's
 * default): a file replaced with another of the same size and date (rsync -t) still gets a new
 * one, and If-Range may name it (a weak tag never matches there).
 */
export function versionOf(stats: BigIntStats): FileVersion {
  const tag = [stats.ino, stats.size, stats.mtimeNs].map((n) => n.toString(16)).join('-');
  return { size: Number(stats.size), etag: `"${tag}"`, lastModified: new Date(Number(stats.mtimeMs)).toUTCString() };
}

/**
 * What a GET or HEAD of a file answers: 304 when If-None-Match names its version, else the
 * whole file or the part Range asks for (Range is defined for GET only, and If-Range may void
 * it); an unsatisfiable Range is a 416 whose Content-Range gives the size.
 */
export function fileAnswer(method: string, headers: IncomingHttpHeaders, version: FileVersion): FileAnswer {
  const { size, etag, lastModified } = version;
  const validators = { ETag: etag, 'Last-Modified': lastModified, 'Cache-Control': 'no-cache' };
  if (noneMatch(headers['if-none-match'], etag)) return { status: 304, size, headers: validators };
  const common = { ...validators, 'Accept-Ranges': 'bytes', 'Content-Type': 'application/octet-stream' };
  const ifRange = headers['if-range'];
  const ranged = method === 'GET' && ifRangeHolds(Array.isArray(ifRange) ? ifRange.join(',') : ifRange, version);
  const range: RangeAnswer = ranged ? byteRange(headers.range, size) : { status: 200 };
  if (range.status === 416) {
    const message = `the file has ${size} bytes: Range '${String(headers.range).slice(0, 100)}' asks for none of them`;
    throw new HttpError(416, 'range_not_satisfiable', message, 'Range', { 'Content-Range': `bytes */${size}` });
  }
  const [start, end] = range.status === 206 ? [range.start, range.end] : [0, size - 1];
  const length = end - start + 1;
  const partial: Record<string, string> = range.status === 206 ? { 'Content-Range': `bytes ${start}-${end}/${size}` } : {};
  return {
    status: range.status,
    size,
    headers: { ...common, ...partial, 'Content-Length': String(length) },
    body: method === 'GET' && length > 0 ? { start, end } : undefined,
  };
}

/** If-None-Match (RFC 9110 13.1.2): `*`, or a list of tags one of which is this one, compared weakly. */
function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.trim() === '*' || header.split(',').some((tag) => opaque(tag) === opaque(etag));
}
