/**
 * The `cache` key of agent answers (refresh, setup, cache/delete, cache/fetch):
 * `[{name, size, checksum}]`, the images the client's cache partition holds
 * (agent-extensions.md). Anything that does not fit fails the command; nothing is stored.
 */

export class CacheAnswerError extends Error {
  override name = 'CacheAnswerError';
}

export interface CachedImage {
  name: string;
  size: bigint;
  checksum: string;
}

/** Far above any real cache; bounds the work one answer can cause. */
const maxEntries = 4096;
const maxBigint = 2n ** 63n - 1n;

/** The listed images, or undefined when the answer has no `cache` key. */
export function readCache(body: unknown): CachedImage[] | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new CacheAnswerError('the answer is not a JSON object');
  const cache = (body as Record<string, unknown>).cache;
  if (cache === undefined) return undefined;
  if (!Array.isArray(cache)) throw new CacheAnswerError("'cache' is not an array");
  if (cache.length > maxEntries) throw new CacheAnswerError(`'cache' lists more than ${maxEntries} images`);
  const seen = new Set<string>();
  return cache.map((entry, i) => {
    const where = `cache[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new CacheAnswerError(`${where} is not an object`);
    const { name, size, checksum } = entry as Record<string, unknown>;
    if (typeof name !== 'string' || name === '' || name.length > 255) throw new CacheAnswerError(`${where}.name is not a name`);
    if (seen.has(name)) throw new CacheAnswerError(`${where}: '${name.slice(0, 60)}' is listed twice`);
    seen.add(name);
    if (checksum !== undefined && (typeof checksum !== 'string' || !/^[0-9a-fA-F]{0,128}$/.test(checksum))) {
      throw new CacheAnswerError(`${where}.checksum is not a hexadecimal string`);
    }
    return { name, size: bytes(size, `${where}.size`), checksum: ((checksum as string | undefined) ?? '').toLowerCase() };
  });
}

/** A JSON integer the parser kept exact, or a decimal string (exact past 2^53). */
function bytes(value: unknown, where: string): bigint {
  let n: bigint | undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) n = BigInt(value);
  else if (typeof value === 'string' && /^[0-9]{1,19}$/.test(value)) n = BigInt(value);
  if (n === undefined || n > maxBigint)
    throw new CacheAnswerError(`${where} is not a non-negative 64-bit integer (past 2^53, send a decimal string)`);
  return n;
}
