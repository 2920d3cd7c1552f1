import { intToIpv4, ipv4ToInt, isNetmask } from 'ogserve';
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
 * those of its first room (by id) that has them. Sorted, so the same inventory always
 * gives the same subnets.
 */
export function desiredSubnets(clients: Iterable<ClientView>): DesiredSubnet[] {
  const byNetwork = new Map<string, DesiredSubnet & { rooms: Map<number, ClientView['room']> }>();
  for (const client of clients) {
    if (!/^[0-9a-f]{12}$/.test(client.mac)) continue;
    const net = networkOf(client);
    if (!net) continue;
    const key = `${intToIpv4(net.network)}/${net.prefix}`;
    let subnet = byNetwork.get(key);
    if (!subnet) {
      subnet = { subnet: key, network: net.network, routers: '', dns: '', reservations: [], rooms: new Map() };
      byNetwork.set(key, subnet);
    }
    subnet.rooms.set(client.room.id, client.room);
    subnet.reservations.push({ mac: keaMac(client.mac), ip: client.ip, hostname: keaHostname(client.name) });
  }
  return [...byNetwork.values()]
    .sort((a, b) => a.network - b.network || a.subnet.localeCompare(b.subnet))
    .map(({ rooms, ...subnet }) => {
      const ordered = [...rooms.values()].sort((a, b) => a.id - b.id);
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
