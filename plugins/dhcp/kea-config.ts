import type { DesiredSubnet, Reservation } from './desired';
import type { KeaConfig } from './kea-client';

/** What ogserve owns in Kea carries this user-context; nothing else is ever changed. */
export const ownedMark = { ogserve: true } as const;

/** The boot file names by firmware and the next-server, as the config gives them ('' = none). */
export interface BootChoice {
  bios: string;
  uefi: string;
  ipxe: string;
  /** UEFI HTTP boot's first stage, a URL ('' = none). */
  http: string;
  nextServer: string;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const listOf = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isObject) : []);

export function isOwned(entry: unknown): boolean {
  return isObject(entry) && isObject(entry['user-context']) && entry['user-context'].ogserve === true;
}

/**
 * The client classes that give each firmware its boot file: iPXE's user class (option 77)
 * first, so that iPXE, which also sends option 93, gets the script and not the first stage
 * again; then UEFI HTTP boot (vendor class `HTTPClient`: a URL, the offer naming that vendor
 * class as UEFI requires, and no next-server: nothing goes over TFTP); then UEFI x64 PXE
 * (option 93 = 7 or 9) and BIOS (93 = 0). A firmware without a file gets no class.
 */
export function bootClasses(boot: BootChoice): Json[] {
  const ipxe = "substring(option[77].hex, 0, 4) == 'iPXE'";
  const http = "substring(option[60].hex, 0, 10) == 'HTTPClient'";
  const notIpxe = boot.ipxe ? "not member('ogserve-ipxe') and " : '';
  const notHttp = boot.http ? "not member('ogserve-http') and " : '';
  const classes = [
    { name: 'ogserve-ipxe', test: ipxe, file: boot.ipxe, tftp: true },
    { name: 'ogserve-http', test: `${notIpxe}${http}`, file: boot.http, tftp: false },
    {
      name: 'ogserve-uefi',
      test: `${notIpxe}${notHttp}(option[93].hex == 0x0007 or option[93].hex == 0x0009)`,
      file: boot.uefi,
      tftp: true,
    },
    { name: 'ogserve-bios', test: `${notIpxe}option[93].hex == 0x0000`, file: boot.bios, tftp: true },
  ];
  return classes
    .filter((c) => c.file)
    .map((c) => ({
      name: c.name,
      test: c.test,
      'boot-file-name': c.file,
      ...(c.tftp && boot.nextServer ? { 'next-server': boot.nextServer } : {}),
      ...(c.tftp ? {} : { 'option-data': [{ name: 'vendor-class-identifier', data: 'HTTPClient', 'always-send': true }] }),
      'user-context': { ...ownedMark },
    }));
}

function subnetEntry(desired: DesiredSubnet, id: number): Json {
  const options = [
    ...(desired.routers ? [{ name: 'routers', data: desired.routers }] : []),
    ...(desired.dns ? [{ name: 'domain-name-servers', data: desired.dns }] : []),
  ];
  return {
    id,
    subnet: desired.subnet,
    'option-data': options,
    reservations: desired.reservations.map((r) => ({ 'hw-address': r.mac, 'ip-address': r.ip, hostname: r.hostname })),
    ...(desired.pools.length > 0 ? { pools: desired.pools.map((pool) => ({ pool })) } : {}),
    'user-context': { ...ownedMark },
  };
}

/**
 * Each desired subnet's id: the id Kea has for that prefix among ogserve's subnets (kept
 * stable), else the network address as a number, moved on while a site's subnet holds it
 * (in `subnet4` or in a shared network).
 */
function subnetIds(config: KeaConfig, desired: DesiredSubnet[]): number[] {
  const current = listOf(config.subnet4);
  const ownedIds = new Map(current.filter(isOwned).map((s) => [String(s.subnet), Number(s.id)]));
  // Subnet ids are unique across the whole server: the site's shared networks' subnets hold theirs too.
  const shared = listOf(config['shared-networks']).flatMap((n) => listOf(n.subnet4));
  const taken = new Set([...current.filter((s) => !isOwned(s)), ...shared].map((s) => Number(s.id)));
  return desired.map((d) => {
    let id = ownedIds.get(d.subnet) ?? Math.max(1, d.network);
    while (taken.has(id)) id = id >= 4294967294 ? 1 : id + 1;
    taken.add(id);
    return id;
  });
}

/**
 * The running Dhcp4 section with ogserve's subnets and classes replaced by the desired ones:
 * the site's own subnets and classes keep their place and content, every other key is
 * passed back as config-get answered it.
 */
export function mergedConfig(current: KeaConfig, desired: DesiredSubnet[], boot: BootChoice): KeaConfig {
  const subnets = listOf(current.subnet4);
  const ids = subnetIds(current, desired);
  const site = subnets.filter((s) => !isOwned(s));
  const siteClasses = listOf(current['client-classes']).filter((c) => !isOwned(c));
  const next: KeaConfig = { ...current, subnet4: [...site, ...desired.map((d, i) => subnetEntry(d, ids[i]!))] };
  const classes = [...siteClasses, ...bootClasses(boot)];
  if (classes.length > 0 || 'client-classes' in current) next['client-classes'] = classes;
  return next;
}

const blankServer = (value: unknown) => (value === undefined || value === '0.0.0.0' ? '' : String(value));

/** ogserve's part of a configuration, in a form config-get's expanded answer and ours share. */
export function ownedPart(config: KeaConfig): string {
  const subnets = listOf(config.subnet4)
    .filter(isOwned)
    .map((s) => ({
      id: Number(s.id),
      subnet: String(s.subnet),
      options: listOf(s['option-data'])
        .map((o) => `${String(o.name)}=${String(o.data).replace(/\s+/g, '')}`)
        .sort(),
      // Kea answers a subnet's reservations in an order of its own (not always the one it was given).
      reservations: reservationsOf(s)
        .map((r) => `${r.mac} ${r.ip} ${r.hostname}`)
        .sort(),
      pools: listOf(s.pools).map((p) => String(p.pool).replace(/\s+/g, '')),
    }));
  const classes = listOf(config['client-classes'])
    .filter(isOwned)
    .map((c) => [c.name, c.test, c['boot-file-name'] ?? '', blankServer(c['next-server'])]);
  return JSON.stringify({ subnets, classes });
}

function reservationsOf(subnet: Json): Reservation[] {
  return listOf(subnet.reservations).map((r) => ({
    mac: String(r['hw-address'] ?? '').toLowerCase(),
    ip: String(r['ip-address'] ?? ''),
    hostname: String(r.hostname ?? ''),
  }));
}

/** ogserve's reservations as Kea has them, by MAC, with the subnet each is in. */
export function ownedReservations(config: KeaConfig): Map<string, Reservation & { subnet: string }> {
  const found = new Map<string, Reservation & { subnet: string }>();
  for (const subnet of listOf(config.subnet4).filter(isOwned))
    for (const r of reservationsOf(subnet)) found.set(r.mac, { ...r, subnet: String(subnet.subnet) });
  return found;
}

export interface Differences {
  /** In the inventory, not in Kea. */
  missing: (Reservation & { subnet: string })[];
  /** In Kea's ogserve subnets, not in the inventory. */
  extra: (Reservation & { subnet: string })[];
  /** In both, with another address, name or subnet. */
  different: { mac: string; inventory: Reservation & { subnet: string }; kea: Reservation & { subnet: string } }[];
}

export function differences(config: KeaConfig, desired: DesiredSubnet[]): Differences {
  const kea = ownedReservations(config);
  const wanted = new Map(desired.flatMap((s) => s.reservations.map((r) => [r.mac, { ...r, subnet: s.subnet }] as const)));
  const result: Differences = { missing: [], extra: [], different: [] };
  for (const [mac, inventory] of wanted) {
    const there = kea.get(mac);
    if (!there) result.missing.push(inventory);
    else if (there.ip !== inventory.ip || there.hostname !== inventory.hostname || there.subnet !== inventory.subnet)
      result.different.push({ mac, inventory, kea: there });
  }
  for (const [mac, there] of kea) if (!wanted.has(mac)) result.extra.push(there);
  return result;
}

/** Addresses Kea reserved for a MAC that the inventory now gives another address: their leases are stale. */
export function readdressed(before: KeaConfig, desired: DesiredSubnet[]): string[] {
  const old = ownedReservations(before);
  const stale: string[] = [];
  for (const subnet of desired)
    for (const r of subnet.reservations) {
      const was = old.get(r.mac);
      if (was && was.ip !== r.ip) stale.push(was.ip);
    }
  return stale;
}

/** Whether the running configuration loads the lease_cmds hook (lease4-del needs it). */
export function hasLeaseCommands(config: KeaConfig): boolean {
  return listOf(config['hooks-libraries']).some((h) => /libdhcp_lease_cmds\.so$/.test(String(h.library ?? '')));
}

/** Counts for a backup's listing. */
export function summary(config: KeaConfig): { subnets: number; reservations: number } {
  const subnets = listOf(config.subnet4);
  return { subnets: subnets.length, reservations: subnets.reduce((n, s) => n + listOf(s.reservations).length, 0) };
}
