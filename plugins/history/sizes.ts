/**
 * What the fleet reports read from the reference agent's hardware lines (ogListHardwareInfo,
 * from lshw): `mem=<vendor> <product> <size> <clock> (<slot>)` per bank (or `mem=<size>` for
 * the total), `dis=<vendor> <product> <size> v.<firmware>`, `cpu=<vendor> <product> <MHz>
 * v.<version>`, `boo=UEFI` or `boo=BIOS`. Sizes are lshw's (`8GiB`, `465GiB`) or what an
 * agent writes otherwise (`8192MiB`, `16 GB`, `7,8 GiB`).
 */

const units: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

const sizePattern = /(?<![\w.])(\d{1,9}(?:[.,]\d{1,3})?)\s?(KiB|MiB|GiB|TiB|KB|MB|GB|TB)(?![\w])/gi;
const mhzPattern = /(?<![\w.])\d{1,6}(?:[.,]\d{1,3})?\s?MHz(?![\w])/gi;
const versionPattern = /(?<![\w.])v\.\S*/g;

/** The last size in a component's text, in bytes (lshw prints the size after the product name). */
export function sizeOf(description: string): number | undefined {
  let last: RegExpExecArray | undefined;
  for (const match of description.matchAll(sizePattern)) last = match;
  if (!last) return undefined;
  return Math.round(Number(last[1]!.replace(',', '.')) * units[last[2]!.toLowerCase()]!);
}

/** A size as people read it: GiB below a TiB, with one decimal when not whole. */
export function sizeLabel(bytes: number): string {
  const [value, unit] =
    bytes >= 2 ** 40 ? [bytes / 2 ** 40, 'TiB'] : bytes >= 2 ** 30 ? [bytes / 2 ** 30, 'GiB'] : [bytes / 2 ** 20, 'MiB'];
  const rounded = Math.round(value * 10) / 10;
  return `${Number.isInteger(rounded) ? rounded : rounded.toFixed(1)} ${unit}`;
}

function squeeze(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** A CPU's model: its text without the clock lshw reads at that moment, nor the `v.` version. */
export function cpuModel(description: string): string {
  return squeeze(description.replace(mhzPattern, '').replace(versionPattern, '')) || description;
}

/** A disk's model: its text without the size and the firmware version. */
export function diskModel(description: string): string {
  let last: RegExpExecArray | undefined;
  for (const match of description.matchAll(sizePattern)) last = match;
  const withoutSize = last ? description.slice(0, last.index) + description.slice(last.index + last[0].length) : description;
  return squeeze(withoutSize.replace(versionPattern, '')) || description;
}

/** The total of the sizes of components of one type (memory banks, disks), in bytes. */
export function totalSize(descriptions: readonly string[]): number {
  return descriptions.reduce((sum, d) => sum + (sizeOf(d) ?? 0), 0);
}
