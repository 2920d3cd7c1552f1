/** Sizes and times as people read them. */

const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

export function humanBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes <= 0) return '0 B';
  const exponent = Math.min(units.length - 1, Math.floor(Math.log(bytes) / Math.log(1024)));
  const value = bytes / 1024 ** exponent;
  return `${value >= 100 || exponent === 0 ? Math.round(value) : Number(value.toFixed(1))} ${units[exponent]}`;
}

export function humanDuration(seconds: number): string {
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return d > 0 ? `${d} d ${h} h` : h > 0 ? `${h} h ${m} min` : `${m} min`;
}

/** A MAC as 12 lower-case hex digits, for comparing whatever separators were typed. */
export function bareMac(text: string): string {
  return text.toLowerCase().replace(/[^0-9a-f]/g, '');
}

/** 001122aabbcc -> 00:11:22:aa:bb:cc */
export function colonMac(mac: string): string {
  return bareMac(mac).replace(/(..)(?!$)/g, '$1:');
}
