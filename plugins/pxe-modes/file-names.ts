/**
 * Per-client boot file names, built only from a stored MAC (12 hex digits). Anything else
 * is refused here, so no request text can ever become part of a path.
 */
const storedMac = /^[0-9a-f]{12}$/;

function octets(mac: string): string[] {
  const normalized = mac.toLowerCase();
  if (!storedMac.test(normalized)) throw new Error(`refusing boot file name for malformed MAC '${mac}'`);
  return normalized.match(/../g)!;
}

/** Legacy firmware (grub4dos menu.lst): `01-XX-XX-XX-XX-XX-XX`, upper case. */
export function biosFileName(mac: string): string {
  return `01-${octets(mac).join('-').toUpperCase()}`;
}

/** UEFI (GRUB): `01-xx:xx:xx:xx:xx:xx`, lower case. */
export function uefiFileName(mac: string): string {
  return `01-${octets(mac).join(':')}`;
}

const biosName = /^01-([0-9A-F]{2})-([0-9A-F]{2})-([0-9A-F]{2})-([0-9A-F]{2})-([0-9A-F]{2})-([0-9A-F]{2})$/;
const uefiName = /^01-([0-9a-f]{2}):([0-9a-f]{2}):([0-9a-f]{2}):([0-9a-f]{2}):([0-9a-f]{2}):([0-9a-f]{2})$/;

/**
 * The stored MAC (12 lower-case hex digits) a boot file of this firmware is named after, or
 * undefined for a name this plugin never writes there (a site's `default`, other cases).
 */
export function macOfBootFile(firmware: 'bios' | 'uefi', name: string): string | undefined {
  const match = (firmware === 'bios' ? biosName : uefiName).exec(name);
  return match ? match.slice(1).join('').toLowerCase() : undefined;
}
