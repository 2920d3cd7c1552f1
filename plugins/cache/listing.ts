import { stringifyAscii } from 'ogserve';
import type { CachedImage } from './answer';

/** One client of GET /cache/list. */
export interface CacheListingEntry {
  ip: string;
  /** Bytes of the client's cache partition; 0 when it has none. */
  cacheSize: bigint;
  /** Its stored contents (the store's array, replaced whole when they change). */
  images: readonly CachedImage[];
}

interface WrittenImages {
  json: string;
  used: bigint;
}

/**
 * Each client's images as JSON with their total, kept by the store's array: consoles poll the
 * listing, and an array is replaced, never changed, when its client's contents change.
 */
const written = new WeakMap<readonly CachedImage[], WrittenImages>();

function writeImages(images: readonly CachedImage[]): WrittenImages {
  let out = written.get(images);
  if (!out) {
    const json = `[${images.map((i) => `{"name":${stringifyAscii(i.name)},"size":${i.size},"checksum":${stringifyAscii(i.checksum)}}`).join(',')}]`;
    out = { json, used: images.reduce((sum, image) => sum + image.size, 0n) };
    written.set(images, out);
  }
  return out;
}

const none: readonly CachedImage[] = [];

/**
 * The answer of GET /cache/list as stringifyAscii would write it, sizes as exact 64-bit
 * integers: a client without a cache partition lists no images, whatever was stored.
 */
export function cacheListingJson(entries: CacheListingEntry[]): string {
  const clients = entries.map(({ ip, cacheSize, images }) => {
    const { json, used } = writeImages(cacheSize === 0n ? none : images);
    const free = used < cacheSize ? cacheSize - used : 0n;
    return `{"ip":${stringifyAscii(ip)},"cache_size":${cacheSize},"used_size":${used},"free_size":${free},"images":${json}}`;
  });
  return `{"clients":[${clients.join(',')}]}`;
}
