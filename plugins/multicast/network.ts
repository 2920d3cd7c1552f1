import { networkInterfaces } from 'node:os';
import { ErrorCode, badRequest, intToIpv4, ipv4ToInt, isIpv4 } from 'ogserve';

/** A room's network: an address of it and its mask. */
export interface RoomNetwork {
  roomId: number;
  roomName: string;
  ip: string;
  netmask: string;
}

/** Where a session's stream leaves from: an address of this server and the interface holding it. */
export interface SenderInterface {
  address: string;
  device: string;
}

type Interfaces = ReturnType<typeof networkInterfaces>;

function bits(netmask: string): number {
  return ipv4ToInt(netmask).toString(2).replace(/0/g, '').length;
}

/** `10.1.3.0/24` */
export function networkText(net: RoomNetwork): string {
  return `${intToIpv4((ipv4ToInt(net.ip) & ipv4ToInt(net.netmask)) >>> 0)}/${bits(net.netmask)}`;
}

/**
 * The address a room's stream leaves from, never guessed: the one `multicast.interfaces`
 * names for the room (an interface's name, or one of this server's addresses), else this
 * server's only address inside the room's network. None, or a configured one this server
 * does not have, refuses the restore, saying which network and which key.
 */
export function senderInterface(
  net: RoomNetwork,
  configured: string | undefined,
  interfaces: Interfaces = networkInterfaces(),
): SenderInterface {
  const own = Object.entries(interfaces).flatMap(([device, addresses]) =>
    (addresses ?? []).filter((a) => a.family === 'IPv4').map((a) => ({ device, address: a.address })),
  );
  const key = `multicast.interfaces["${net.roomId}"]`;
  if (configured) {
    const found = isIpv4(configured) ? own.find((a) => a.address === configured) : own.find((a) => a.device === configured);
    if (!found)
      throw badRequest(
        ErrorCode.invalidField,
        `${key} names '${configured}', which is not an interface or address of this server`,
        'clients',
      );
    return found;
  }
  const mask = ipv4ToInt(net.netmask);
  const network = ipv4ToInt(net.ip) & mask;
  const inside = own.filter((a) => (ipv4ToInt(a.address) & mask) === network);
  if (inside.length === 1) return inside[0]!;
  const where = `room '${net.roomName}''s network ${networkText(net)}`;
  if (inside.length === 0)
    throw badRequest(
      ErrorCode.invalidField,
      `no address of this server is in ${where}: name the interface its stream leaves from in ${key}`,
      'clients',
    );
  throw badRequest(
    ErrorCode.invalidField,
    `this server has ${inside.length} addresses in ${where} (${inside.map((a) => `${a.device} ${a.address}`).join(', ')}): name one in ${key}`,
    'clients',
  );
}
