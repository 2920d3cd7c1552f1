/**
 * Generic value formats shared by every plugin's request schemas: network addresses and
 * decimal integers. Kept strict on purpose: what passes here is safe to use in file names,
 * packets and database columns.
 */
const octet = '(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const ipv4Pattern = new RegExp(`^${octet}(\\.${octet}){3}$`);
const macPattern = /^(?:[0-9a-fA-F]{12}|[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){5}|[0-9a-fA-F]{2}(?:-[0-9a-fA-F]{2}){5})$/;

export function isIpv4(value: string): boolean {
  return ipv4Pattern.test(value);
}

export function ipv4ToInt(value: string): number {
  const [a, b, c, d] = value.split('.').map(Number) as [number, number, number, number];
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

export function intToIpv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

/**
 * A netmask is a dotted quad whose bits are ones then zeros (255.255.254.0, not 255.0.255.0),
 * with at least one network bit: under 0.0.0.0 every address is one subnet, whose broadcast
 * is the limited broadcast 255.255.255.255.
 */
export function isNetmask(value: string): boolean {
  if (!isIpv4(value) || value === '0.0.0.0') return false;
  const inverted = ~ipv4ToInt(value) >>> 0;
  return (inverted & (inverted + 1)) === 0;
}

/** An address a host can hold: not the unspecified 0.0.0.0 nor the limited broadcast 255.255.255.255. */
export function isHostIpv4(value: string): boolean {
  return isIpv4(value) && value !== '0.0.0.0' && value !== '255.255.255.255';
}

export function isMac(value: string): boolean {
  return macPattern.test(value);
}

/**
 * A MAC a network card holds as its own: a well-formed MAC whose first octet's lowest bit
 * (the group bit) is 0, and not 00:00:00:00:00:00. A group address (multicast, the
 * broadcast ff:ff:ff:ff:ff:ff among them) names many cards, the zero address none: neither
 * identifies a client, and a magic packet or a boot file for one would reach no PC or every PC.
 */
export function isUnicastMac(value: string): boolean {
  if (!macPattern.test(value)) return false;
  // The first octet is the first two characters in every notation.
  const groupBit = Number.parseInt(value.slice(0, 2), 16) & 1;
  return groupBit === 0 && !/^[0:-]+$/.test(value);
}

/** The stored form of a MAC: 12 lower-case hex digits, no separators (as the reference stores it). */
export function normalizeMac(value: string): string {
  return value.replace(/[:-]/g, '').toLowerCase();
}

/**
 * The largest id, code or count a request may carry: every engine stores these in signed
 * 32-bit columns, and a larger value fails there (PostgreSQL, MariaDB) or is kept mangled (SQLite).
 */
export const MAX_INT = 2 ** 31 - 1;

/** A non-negative integer up to MAX_INT written as plain decimal digits: no sign, space, point or exponent. */
export function isDecimalInt(value: string): boolean {
  return /^[0-9]{1,15}$/.test(value) && Number(value) <= MAX_INT;
}

/** C0 controls, DEL and the C1 controls (U+0080-U+009F): never part of a name or a line of text. */
const controlCharacter = /[\u0000-\u001f\u007f-\u009f]/;
/** The same, but tab, line feed and carriage return, which lay out text of several lines. */
const controlOutsideLayout = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
/**
 * A character a reader sees: not white space, not a control, not a format character
 * (zero-width space and joiners, U+FEFF, soft hyphen: Unicode Cf) nor any other character
 * Unicode says to leave undisplayed (Default_Ignorable_Code_Point: U+3164 Hangul filler...).
 */
const visibleCharacter = /[^\s\p{Cc}\p{Cf}\p{Z}\p{Default_Ignorable_Code_Point}]/u;

/**
 * A name a person gave and another must be able to read: no control characters, and at
 * least one visible character (a name made only of zero-width spaces shows as blank).
 * Format characters inside a name stay allowed: joiners are part of some scripts and emoji.
 * The empty name passes (whether a name may be empty is the schema's `minLength`).
 */
export function isPrintableName(value: string): boolean {
  return value === '' || (!controlCharacter.test(value) && visibleCharacter.test(value));
}

/**
 * Text of one line (a location, a serial number): no control characters. ESC, BEL and the
 * like would rewrite a terminal that shows a log line or a listing holding the text.
 */
export function isLineText(value: string): boolean {
  return !controlCharacter.test(value);
}

/**
 * Text of several lines (a comment, a description): no control characters but tab, line
 * feed and carriage return, which a form's text area sends (CR LF from a browser's form post).
 */
export function isMultilineText(value: string): boolean {
  return !controlOutsideLayout.test(value);
}
