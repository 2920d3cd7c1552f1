import type { HardwareInventory, SoftwareInventory } from '../agents';
import type { ClientView, Inventory } from '../inventory';
import { packageOf } from './diff';
import { cpuModel, diskModel, sizeLabel, sizeOf, totalSize } from './sizes';

/** One line of a report's count: a value (a CPU model, a memory size) and how many PCs have it. */
export interface Count {
  value: string;
  count: number;
}

/** The counts of a group of PCs (a center, a room, the whole fleet the caller sees). */
export interface HardwareCounts {
  /** Clients in the group, and those whose hardware was reported. */
  clients: number;
  reported: number;
  cpu: Count[];
  memory: Count[];
  disk: Count[];
  firmware: Count[];
}

export interface HardwareGroup extends HardwareCounts {
  id: number;
  name: string;
  /** A room's center. */
  center?: string;
}

export interface HardwareReport {
  by: 'center' | 'room';
  /** What each category is called (GET /hardware's names of the `cpu`, `mem`, `dis` and `boo` types). */
  names: { cpu: string; memory: string; disk: string; firmware: string };
  groups: HardwareGroup[];
  total: HardwareCounts;
}

const categories = ['cpu', 'memory', 'disk', 'firmware'] as const;
type Category = (typeof categories)[number];
const typeOf: Record<Category, string> = { cpu: 'cpu', memory: 'mem', disk: 'dis', firmware: 'boo' };

/** What one PC counts under each category: each value once per PC. */
function valuesOf(components: { type: string; description: string }[]): Record<Category, Set<string>> {
  const of = (type: string) => components.filter((c) => c.type === type).map((c) => c.description);
  const memory = totalSize(of('mem'));
  return {
    cpu: new Set(of('cpu').map(cpuModel)),
    memory: new Set(memory > 0 ? [sizeLabel(memory)] : []),
    disk: new Set(
      of('dis').map((d) => {
        const size = sizeOf(d);
        return size === undefined ? diskModel(d) : `${diskModel(d)}, ${sizeLabel(size)}`;
      }),
    ),
    firmware: new Set(of('boo')),
  };
}

class Tally {
  clients = 0;
  reported = 0;
  private readonly counts = Object.fromEntries(categories.map((c) => [c, new Map<string, number>()])) as Record<
    Category,
    Map<string, number>
  >;

  add(values: Record<Category, Set<string>> | undefined): void {
    this.clients++;
    if (!values) return;
    this.reported++;
    for (const category of categories)
      for (const value of values[category]) this.counts[category].set(value, (this.counts[category].get(value) ?? 0) + 1);
  }

  counted(): HardwareCounts {
    const list = (category: Category): Count[] =>
      [...this.counts[category]]
        .map(([value, count]) => ({ value, count }))
        .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
    return {
      clients: this.clients,
      reported: this.reported,
      cpu: list('cpu'),
      memory: list('memory'),
      disk: list('disk'),
      firmware: list('firmware'),
    };
  }
}

/** The clients a caller sees: every one, or those inside a limited key's scope. */
async function visibleClients(inventory: Inventory, inside: ReadonlySet<string> | undefined): Promise<ClientView[]> {
  return [...(await inventory.allClients())].filter((c) => !inside || inside.has(c.ip)).sort((a, b) => a.id - b.id);
}

/**
 * Counts by CPU model, memory size, disk model and size, and firmware type, by center or by
 * room. Clients with the same hardware profile (`hardware_id`: the same components) count the
 * same, so the components of one client per profile are read and parsed, not of every one.
 */
export async function hardwareReport(
  inventory: Inventory,
  hardware: HardwareInventory,
  by: 'center' | 'room',
  inside: ReadonlySet<string> | undefined,
): Promise<HardwareReport> {
  const clients = await visibleClients(inventory, inside);
  const representative = new Map<number, number>();
  for (const c of clients) if (c.hardwareId > 0 && !representative.has(c.hardwareId)) representative.set(c.hardwareId, c.id);
  const components = new Map<number, { type: string; description: string }[]>();
  for (const row of await hardware.components(Object.values(typeOf), [...representative.values()])) {
    const list = components.get(row.clientId) ?? [];
    list.push(row);
    components.set(row.clientId, list);
  }
  const profiles = new Map([...representative].map(([profile, clientId]) => [profile, valuesOf(components.get(clientId) ?? [])]));
  const labels = new Map((await inventory.fleetLabels()).map((l) => [l.ip, l]));
  const groups = new Map<number, { group: HardwareGroup; tally: Tally }>();
  const total = new Tally();
  for (const client of clients) {
    const values = profiles.get(client.hardwareId);
    total.add(values);
    const id = by === 'center' ? client.room.centerId : client.room.id;
    let entry = groups.get(id);
    if (!entry) {
      const label = labels.get(client.ip);
      const name = by === 'center' ? (label?.center ?? '') : client.room.name;
      entry = {
        group: { id, name, ...(by === 'room' ? { center: label?.center ?? '' } : {}), ...new Tally().counted() },
        tally: new Tally(),
      };
      groups.set(id, entry);
    }
    entry.tally.add(values);
  }
  return {
    by,
    names: {
      cpu: hardware.typeName('cpu'),
      memory: hardware.typeName('mem'),
      disk: hardware.typeName('dis'),
      firmware: hardware.typeName('boo'),
    },
    groups: [...groups.values()].sort((a, b) => a.group.id - b.group.id).map(({ group, tally }) => ({ ...group, ...tally.counted() })),
    total: total.counted(),
  };
}

/** The PCs that have one version of a package. */
export interface SoftwarePackage {
  name: string;
  version: string;
  count: number;
  clients: { ip: string; name: string; room: string; disk: number; partition: number }[];
}

export interface SoftwareReport {
  name: string;
  /** PCs with at least one matching package. */
  clients: number;
  packages: SoftwarePackage[];
}

/** Which PCs have which versions of the packages whose line contains `name` (case ignored). */
export async function softwareReport(
  inventory: Inventory,
  software: SoftwareInventory,
  name: string,
  inside: ReadonlySet<string> | undefined,
): Promise<SoftwareReport> {
  const packages = new Map<string, SoftwarePackage>();
  const seen = new Set<number>();
  for (const row of await software.containing(name)) {
    const client = await inventory.clientById(row.clientId);
    if (!client || (inside && !inside.has(client.ip))) continue;
    const { name: packageName, version } = packageOf(row.name);
    const key = `${packageName}\u0000${version}`;
    let entry = packages.get(key);
    if (!entry) {
      entry = { name: packageName, version, count: 0, clients: [] };
      packages.set(key, entry);
    }
    entry.clients.push({ ip: client.ip, name: client.name, room: client.room.name, disk: row.disk, partition: row.partition });
    seen.add(client.id);
  }
  const list = [...packages.values()].sort((a, b) => compareText(a.name, b.name) || compareVersions(b.version, a.version));
  for (const entry of list) {
    entry.clients.sort((a, b) => compareText(a.ip, b.ip) || a.disk - b.disk || a.partition - b.partition);
    entry.count = new Set(entry.clients.map((c) => c.ip)).size;
  }
  return { name, clients: seen.size, packages: list };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Versions by their numbers (`10.2` after `9.1`), then as text. */
function compareVersions(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true }) || compareText(a, b);
}

/** A CSV field: quoted when it holds a comma, a quote or a line break; a leading = + - @ is kept as text. */
function field(value: string | number): string {
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csv(rows: (string | number)[][]): string {
  return `${rows.map((row) => row.map(field).join(',')).join('\r\n')}\r\n`;
}

/** The hardware report as CSV: one row per group, category and value (the categories named as in `names`). */
export function hardwareCsv(report: HardwareReport): string {
  const rows: (string | number)[][] = [[report.by, `${report.by}_id`, 'category', 'value', 'count']];
  for (const group of report.groups) {
    for (const category of categories)
      for (const c of group[category]) rows.push([group.name, group.id, report.names[category], c.value, c.count]);
  }
  return csv(rows);
}

/** The software report as CSV: one row per package version and PC. */
export function softwareCsv(report: SoftwareReport): string {
  const rows: (string | number)[][] = [['package', 'version', 'ip', 'client', 'room', 'disk', 'partition']];
  for (const p of report.packages) for (const c of p.clients) rows.push([p.name, p.version, c.ip, c.name, c.room, c.disk, c.partition]);
  return csv(rows);
}
