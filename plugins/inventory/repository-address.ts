import { ipv4ToInt } from 'ogserve';
import type { ClientView } from './client-view';

/**
 * The repository address to give one client (images and caches use it). A repository may answer on several
 * addresses (one per network): a client gets the one on its own network. An address the
 * caller named that is not the repository's is sent as it is: ogCLI names its own server.
 */
export function repositoryAddressFor(client: ClientView | undefined, addresses: string[], asked?: string): string | undefined {
  if (asked !== undefined && !addresses.includes(asked)) return asked;
  const netmask = client?.netmask || client?.room.netmask;
  if (client && netmask) {
    const mask = ipv4ToInt(netmask);
    const network = ipv4ToInt(client.ip) & mask;
    const local = addresses.find((address) => (ipv4ToInt(address) & mask) === network);
    if (local) return local;
  }
  return asked ?? addresses[0];
}
