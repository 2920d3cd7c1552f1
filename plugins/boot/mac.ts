import { isMac, normalizeMac } from 'ogserve';

/**
 * The stored form (12 lower-case hex digits) of a MAC as iPXE may send it: `${mac}`
 * (colons), `${mac:hexhyp}` (hyphens) or `${mac:hexraw}` (none), either case; undefined for
 * anything else, which is then never looked up nor put in a path.
 */
export function macFrom(text: string | null | undefined): string | undefined {
  if (!text || !isMac(text)) return undefined;
  return normalizeMac(text);
}

/** `aa:bb:cc:dd:ee:ff`, for a PC's screen. */
export function colonMac(mac: string): string {
  return mac.match(/../g)!.join(':');
}
