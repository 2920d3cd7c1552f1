import { cpuModel } from './sizes';

export interface Component {
  type: string;
  description: string;
}

/** A difference between two hardware inventories: one component added, removed, or changed (same type, other text). */
export interface HardwareChange {
  change: 'added' | 'removed' | 'changed';
  type: string;
  before: string | null;
  after: string | null;
}

/** A difference between two software inventories of one partition. */
export interface SoftwareChange {
  change: 'installed' | 'removed' | 'updated' | 'os_changed';
  /** The package's name ('' for the OS line). */
  package: string;
  before: string | null;
  after: string | null;
}

/**
 * What a component is compared by: its text, except a CPU's clock, which lshw reads at the
 * moment it runs (a CPU that reports 3400MHz at one boot and 3392MHz at the next is the same).
 */
function comparable(type: string, description: string): string {
  return type === 'cpu' ? cpuModel(description) : description;
}

/** The values of each key, in order; keys in order of first appearance. */
function grouped<T>(items: readonly T[], key: (item: T) => string, value: (item: T) => string): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const item of items) {
    const k = key(item);
    const list = groups.get(k) ?? [];
    list.push(value(item));
    groups.set(k, list);
  }
  return groups;
}

/**
 * Pair what went and what came of each key: the first gone with the first come is one
 * change, what is left over is only gone or only come. Keys in order of first appearance
 * (the old inventory's first), values in the inventory's order.
 */
function pairs(
  before: Map<string, string[]>,
  after: Map<string, string[]>,
  same: (key: string, value: string) => string,
): { key: string; before: string | null; after: string | null }[] {
  const out: { key: string; before: string | null; after: string | null }[] = [];
  const keys = [...new Set([...before.keys(), ...after.keys()])];
  for (const key of keys) {
    const gone = [...(before.get(key) ?? [])];
    const come = [...(after.get(key) ?? [])];
    // Take out what is on both sides, one for one (two identical memory banks, then one: one removed).
    for (let i = 0; i < gone.length; i++) {
      const at = come.findIndex((c) => same(key, c) === same(key, gone[i]!));
      if (at >= 0) {
        come.splice(at, 1);
        gone.splice(i, 1);
        i--;
      }
    }
    const n = Math.max(gone.length, come.length);
    for (let i = 0; i < n; i++) out.push({ key, before: gone[i] ?? null, after: come[i] ?? null });
  }
  return out;
}

/** The differences from one hardware inventory to the next; none when they hold the same components in any order. */
export function hardwareChanges(before: readonly Component[], after: readonly Component[]): HardwareChange[] {
  const by = (items: readonly Component[]) =>
    grouped(
      items,
      (c) => c.type,
      (c) => c.description,
    );
  return pairs(by(before), by(after), comparable).map((p) => ({
    change: p.before === null ? 'added' : p.after === null ? 'removed' : 'changed',
    type: p.key,
    before: p.before,
    after: p.after,
  }));
}

/**
 * A package line as the agents write it, `<name> <version>` (dpkg, rpm, the Windows
 * uninstall keys' DisplayName and DisplayVersion): the version is the last word when it
 * starts with a digit; otherwise the whole line is the name and the version is ''.
 */
export function packageOf(line: string): { name: string; version: string } {
  const match = /^(.*\S)\s+(\d\S*)$/.exec(line.trim());
  return match ? { name: match[1]!, version: match[2]! } : { name: line.trim(), version: '' };
}

/**
 * The differences from one software inventory of a partition to the next (the OS line
 * first, then packages): a package installed, removed, or at another version; none when
 * the same lines come in any order.
 */
export function softwareChanges(before: readonly string[], after: readonly string[]): SoftwareChange[] {
  const changes: SoftwareChange[] = [];
  const [osBefore = '', ...oldPackages] = before;
  const [osAfter = '', ...newPackages] = after;
  if (before.length > 0 && after.length > 0 && osBefore !== osAfter)
    changes.push({ change: 'os_changed', package: '', before: osBefore, after: osAfter });
  const by = (lines: readonly string[]) =>
    grouped(
      lines.map(packageOf),
      (p) => p.name,
      (p) => p.version,
    );
  for (const p of pairs(by(oldPackages), by(newPackages), (_key, value) => value)) {
    changes.push({
      change: p.before === null ? 'installed' : p.after === null ? 'removed' : 'updated',
      package: p.key,
      before: p.before,
      after: p.after,
    });
  }
  return changes;
}
