import os from 'node:os';
import { ipv4ToInt, isIpv4, isNetmask } from 'ogserve';

export type WakeType = 'broadcast' | 'unicast';

/** Only sent when `wol.limited_broadcast` is on: it leaves through the default route. */
export const limitedBroadcast = '255.255.255.255';

/**
 * A dotted quad already checked by isIpv4, as a number: read digit by digit, as POST /wol
 * does it for every client (ipv4ToInt splits the string into an array of four).
 */
function dottedToInt(text: string): number {
  let value = 0;
  let octet = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 46) {
      value = (value << 8) | octet;
      octet = 0;
    } else octet = octet * 10 + code - 48;
  }
  return ((value << 8) | octet) >>> 0;
}

/** The directed broadcast of the client's subnet: ip | ~netmask. */
export function directedBroadcast(ip: string, netmask: string): string {
  const broadcast = dottedToInt(ip) | ~dottedToInt(netmask);
  return `${broadcast >>> 24}.${(broadcast >>> 16) & 255}.${(broadcast >>> 8) & 255}.${broadcast & 255}`;
}

type InterfaceTable = NodeJS.Dict<os.NetworkInterfaceInfo[]>;

/**
 * The IPv4 broadcast addresses of the interface named `name` (none when it is absent).
 * Node does not expose the kernel's broadcast address, so it is computed from each IPv4
 * address and netmask; /31 and /32 addresses have no broadcast address.
 */
export function interfaceBroadcasts(name: string | undefined, table: InterfaceTable = os.networkInterfaces()): string[] {
  if (!name) return [];
  const found = new Set<string>();
  for (const entry of table[name] ?? []) {
    if (entry.family !== 'IPv4' || !isIpv4(entry.address) || !isNetmask(entry.netmask)) continue;
    const hostBits = ~ipv4ToInt(entry.netmask) >>> 0;
    if (hostBits < 3) continue;
    found.add(directedBroadcast(entry.address, entry.netmask));
  }
  return [...found];
}

/** Where the broadcast-type packets that do not depend on the client go, besides its subnet. */
export function sharedBroadcasts(interfaceName: string | undefined, allowLimited: boolean, table?: InterfaceTable): string[] {
  const broadcasts = interfaceBroadcasts(interfaceName, table);
  if (broadcasts.length > 0) return broadcasts;
  return allowLimited ? [limitedBroadcast] : [];
}

/**
 * Destinations of one client's magic packet. Unicast: the client's IP. Broadcast: the
 * shared broadcasts (the `wol.interface` one, as the reference) and the client's directed
 * broadcast from its room netmask, each once. Undefined when the client's own address is
 * 255.255.255.255 and `allowLimited` is off, whatever the record says: a client at
 * 255.255.255.x in a /24 gives it, and a database imported from the reference may hold
 * records the REST interface refuses (a room netmask 0.0.0.0, a client at 255.255.255.255).
 * `shared` is distinct, as sharedBroadcasts gives it.
 */
export function destinations(
  client: { ip: string; netmask: string },
  type: WakeType,
  shared: string[],
  allowLimited: boolean,
): string[] | undefined {
  const own = type === 'unicast' ? client.ip : directedBroadcast(client.ip, client.netmask);
  if (own === limitedBroadcast && !allowLimited) return undefined;
  // Called per client: no Set, and a single array when nothing is shared (the default).
  if (type === 'unicast' || shared.length === 0) return [own];
  return shared.includes(own) ? [...shared] : [...shared, own];
}
