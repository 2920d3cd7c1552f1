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
