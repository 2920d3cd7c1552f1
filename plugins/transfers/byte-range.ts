/**
 * The Range and If-Range headers of a GET for one file, read as RFC 9110 (sections 13.1.5 and
 * 14) says. Pure: no file, no socket.
 */

/** What to answer: the whole file, one part of it (`start` to `end`, both included), or 416. */
export type RangeAnswer = { status: 200 } | { status: 206; start: number; end: number } | { status: 416 };

const whole: RangeAnswer = { status: 200 };
const unsatisfiable: RangeAnswer = { status: 416 };

/** `first-last`, `first-` or `-suffix`, digits only (RFC 9110 14.1.2). */
const rangeSpec = /^(?:(\d+)-(\d*)|-(\d+))$/;

/**
 * The part of a file of `size` bytes that a Range header asks for.
 * - No header, one that is malformed, or a unit other than bytes: ignored, the whole file.
 * - Several ranges: the whole file too (RFC 9110 lets a server ignore Range; boot loaders and
 *   download tools ask for one, and a multipart answer is a second format to get right).
 * - `5-1` (last before first), `-0`, or a first byte past the end: 416.
 * - `-n`: the last n bytes (the whole file when n is larger); `5-`: from byte 5 to the end.
 */
export function byteRange(header: string | undefined, size: number): RangeAnswer {
  if (header === undefined) return whole;
  const equals = header.indexOf('=');
  if (equals < 0 || header.slice(0, equals).trim().toLowerCase() !== 'bytes') return whole;
  // A list may hold empty elements (RFC 9110 5.6.1): `bytes=0-9,` asks for one range.
  const specs = header
    .slice(equals + 1)
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const spec = specs.length === 1 ? rangeSpec.exec(specs[0]!) : null;
  if (!spec) return whole;
  // Digits past 2^53 become inexact or Infinity; compared with a file's size they still say far.
  const [, first, last, suffix] = spec;
  if (suffix !== undefined) {
    const length = Number(suffix);
    if (length === 0 || size === 0) return unsatisfiable;
    return { status: 206, start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  if ((last !== '' && Number(last) < start) || start >= size) return unsatisfiable;
  return { status: 206, start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
}

/**
 * Whether a Range may be honoured under If-Range (RFC 9110 13.1.5): when there is none, or
 * when it names the version the server has: its entity tag compared strongly (a weak one never
 * matches), or its Last-Modified date exactly. Otherwise the whole file is sent.
 */
export function ifRangeHolds(ifRange: string | undefined, current: { etag: string; lastModified: string }): boolean {
  if (ifRange === undefined) return true;
  const value = ifRange.trim();
  if (value.startsWith('"') || value.startsWith('W/')) return value === current.etag && !current.etag.startsWith('W/');
  const date = Date.parse(value);
  return !Number.isNaN(date) && date === Date.parse(current.lastModified);
}
