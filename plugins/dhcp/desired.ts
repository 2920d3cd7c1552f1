import { StartupError, intToIpv4, ipv4ToInt, isIpv4, isNetmask } from 'ogserve';
import type { ClientView } from '../inventory';

/** What ogserve writes in Kea for one PC: its MAC (aa:bb:cc:dd:ee:ff), address and name. */
export interface Reservation {
  mac: string;
  ip: string;
  hostname: string;
}

/** A network of one or more rooms, as a Kea subnet ogserve owns. */
export interface DesiredSubnet {
  /** 10.1.2.0/24 */
  subnet: string;
  /** The network address as a number: the subnet's id unless a site subnet holds that id. */
  network: number;
  routers: string;
  dns: string;
  reservations: Reservation[];
  /** Address ranges for PCs no reservation names (`10.1.3.200-10.1.3.250`): new PCs booting for discovery. */
  pools: string[];
}

/** A pool of `dhcp.pools`: its network and its range, checked at start. */
export interface PoolSetting {
  /** 10.1.3.0/24 */
  network: string;
  /** 10.1.3.200-10.1.3.250 */
  range: string;
}

/**
 * `dhcp.pools`' entries checked: the network's address and prefix, the range's two
 * addresses inside it, the first not after the last. Throws naming the entry.
 */
export function checkedPools(pools: { network: string; range: string }[]): PoolSetting[] {
  return pools.map(({ network, range }, i) => {
    const where = `dhcp.pools[${i}]`;
    const [address, bits] = network.split('/');
    const prefix = Number(bits);
    if (!isIpv4(address ?? '') || !/^[0-9]{1,2}$/.test(bits ?? '') || prefix > 32)
      throw new StartupError(`${where}.network: '${network}' is not a network such as 10.1.3.0/24`);
    const mask = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
    const cidr = `${intToIpv4((ipv4ToInt(address!) & mask) >>> 0)}/${prefix}`;
    const ends = range.split('-').map((end) => end.trim());
    if (ends.length !== 2 || !ends.every((end) => isIpv4(end) && inSubnet(end, cidr)))
      throw new StartupError(`${where}.range: '${range}' is not two addresses of ${cidr}, such as 10.1.3.200-10.1.3.250`);
    if (ipv4ToInt(ends[0]!) > ipv4ToInt(ends[1]!)) throw new StartupError(`${where}.range: '${range}' ends before it starts`);
    return { network: cidr, range: `${ends[0]}-${ends[1]}` };
  });
}

export function keaMac(mac: string): string {
  return mac.toLowerCase().match(/../g)?.join(':') ?? mac;
}

/** Kea keeps a reservation's hostname as a DNS name: other characters become '-'. */
export function keaHostname(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 63);
}

function prefixOf(netmask: string): number {
  return 32 - Math.log2((~ipv4ToInt(netmask) >>> 0) + 1);
}

/**
 * The network a client's reservation goes in: its address under the room's netmask (the
 * client's own where the room has none). A room's router in that network is the same
 * network; a router outside it is not the client's router and is left out of the options.
 */
function networkOf(client: ClientView): { network: number; prefix: number } | undefined {
  const mask = isNetmask(client.room.netmask) ? client.room.netmask : isNetmask(client.netmask) ? client.netmask : '';
  if (!mask) return undefined;
  const bits = ipv4ToInt(mask);
  return { network: (ipv4ToInt(client.ip) & bits) >>> 0, prefix: prefixOf(mask) };
}

/**
 * Every client with a MAC as a reservation, grouped by network: rooms that share a network
 * share a subnet (Kea refuses two subnets with one prefix). A subnet's routers and DNS are
 * those of its first room (by id) that has them. A pool of `dhcp.pools` goes in its
 * network's subnet, made for it when no client is there yet (its routers and DNS from the
 * rooms whose router is in it). Sorted, so the same inventory always gives the same subnets.
 */
export function desiredSubnets(
  clients: Iterable<ClientView>,
  pools: readonly PoolSetting[] = [],
  rooms: readonly ClientView['room'][] = [],
): DesiredSubnet[] {
  type Building = DesiredSubnet & { rooms: Map<number, ClientView['room']> };
  const byNetwork = new Map<string, Building>();
  const subnetOf = (key: string, network: number): Building => {
    let subnet = byNetwork.get(key);
    if (!subnet) {
      subnet = { subnet: key, network, routers: '', dns: '', reservations: [], pools: [], rooms: new Map() };
      byNetwork.set(key, subnet);
    }
    return subnet;
  };
  for (const client of clients) {
    if (!/^[0-9a-f]{12}$/.test(client.mac)) continue;
    const net = networkOf(client);
    if (!net) continue;
    const subnet = subnetOf(`${intToIpv4(net.network)}/${net.prefix}`, net.network);
    subnet.rooms.set(client.room.id, client.room);
    subnet.reservations.push({ mac: keaMac(client.mac), ip: client.ip, hostname: keaHostname(client.name) });
  }
  for (const pool of pools) {
    const made = !byNetwork.has(pool.network);
    const subnet = subnetOf(pool.network, ipv4ToInt(pool.network.split('/')[0]!));
    subnet.pools.push(pool.range);
    if (made) for (const room of rooms) if (room.gateway && inSubnet(room.gateway, pool.network)) subnet.rooms.set(room.id, room);
  }
  return [...byNetwork.values()]
    .sort((a, b) => a.network - b.network || a.subnet.localeCompare(b.subnet))
    .map(({ rooms: ofSubnet, ...subnet }) => {
      const ordered = [...ofSubnet.values()].sort((a, b) => a.id - b.id);
      const gateway = ordered.find((r) => r.gateway && inSubnet(r.gateway, subnet.subnet))?.gateway ?? '';
      const dns = ordered.find((r) => r.dns)?.dns ?? '';
      return {
        ...subnet,
        routers: gateway,
        // Kea's domain-name-servers takes addresses only.
        dns: dns
          .split(/[\s,;]+/)
          .filter((d) => /^[0-9]{1,3}(\.[0-9]{1,3}){3}$/.test(d))
          .join(', '),
        reservations: subnet.reservations.sort((a, b) => ipv4ToInt(a.ip) - ipv4ToInt(b.ip)),
      };
    });
}

export function inSubnet(ip: string, cidr: string): boolean {
  const [network, prefix] = cidr.split('/');
  if (!/^[0-9.]+$/.test(ip) || ip.split('.').length !== 4) return false;
  const bits = Number(prefix) === 0 ? 0 : (~0 << (32 - Number(prefix))) >>> 0;
  return (ipv4ToInt(ip) & bits) >>> 0 === ipv4ToInt(network!);
}
