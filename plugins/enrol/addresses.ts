import { ErrorCode, badRequest, intToIpv4, ipv4ToInt, isIpv4, isNetmask } from 'ogserve';

/** What the plan needs of the room the PCs go to. */
export interface RoomNetwork {
  netmask: string;
  gateway: string;
}

/**
 * The new clients' addresses, in the PCs' order. `current`: the address each has now (its
 * discovery lease, which the reservation then keeps), refused when a client has it. An
 * address: free ones from it up, in its network under the room's netmask (a /24 when the
 * room has none), skipping the network and broadcast addresses, the room's router and every
 * address in `taken` (clients', and other discovered PCs' leases). Throws a 400 naming
 * `field` when they cannot all have one.
 */
export function addressesFor(
  pcs: { mac: string; ip: string }[],
  how: string,
  room: RoomNetwork,
  taken: ReadonlyMap<string, string>,
  field = 'addresses',
): string[] {
  if (how === 'current') {
    const seen = new Set<string>();
    return pcs.map(({ ip }) => {
      const holder = taken.get(ip);
      if (holder !== undefined)
        throw badRequest(ErrorCode.duplicate, `${ip} is ${holder}'s address: give the first address of a free range instead`, field);
      if (seen.has(ip)) throw badRequest(ErrorCode.duplicate, `two of these PCs were seen at ${ip}`, field);
      seen.add(ip);
      return ip;
    });
  }
  const mask = ipv4ToInt(isNetmask(room.netmask) ? room.netmask : '255.255.255.0');
  const first = ipv4ToInt(how);
  const network = (first & mask) >>> 0;
  const broadcast = (network | ~mask) >>> 0;
  const skip = new Set([network, broadcast, ...(isIpv4(room.gateway) ? [ipv4ToInt(room.gateway)] : [])]);
  const out: string[] = [];
  for (let n = first; n < broadcast && out.length < pcs.length; n++) {
    const ip = intToIpv4(n >>> 0);
    if (!skip.has(n >>> 0) && !taken.has(ip)) out.push(ip);
  }
  if (out.length < pcs.length)
    throw badRequest(
      ErrorCode.invalidField,
      `${intToIpv4(network)}/${32 - Math.log2((~mask >>> 0) + 1)} has ${out.length} free addresses from ${how} up, not ${pcs.length}`,
      field,
    );
  return out;
}
