import { timingSafeEqual } from 'node:crypto';

/** The key of an Authorization header: as the reference sends it, or after `Bearer ` (what Prometheus sends). */
export function keyOf(header: string | undefined): string | undefined {
  return header?.startsWith('Bearer ') ? header.slice(7) : header;
}

/**
 * Whether `key` is `token`, in time that does not depend on where they differ (their
 * lengths may show, as with any such compare; the key's value does not).
 */
export function isKey(key: string, token: Buffer): boolean {
  const supplied = Buffer.from(key);
  return supplied.length === token.length && timingSafeEqual(supplied, token);
}
