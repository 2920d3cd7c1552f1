import dgram from 'node:dgram';
import { randomBytes } from 'node:crypto';

/** What a DHCPOFFER said: the address offered, the boot file, the next server and every option by code. */
export interface Offer {
  yiaddr: string;
  siaddr: string;
  file: string;
  options: Map<number, Buffer>;
}

export interface DiscoverOptions {
  /** The relay's address (giaddr), a 127.x address in the room's network; the socket binds it. */
  giaddr: string;
  /** The PC's MAC, 12 hex digits with or without separators. */
  mac: string;
  /** Option 93, the client system architecture: 0 BIOS, 7 or 9 UEFI x64; absent when undefined. */
  arch?: number;
  /** Option 77, the user class ("iPXE"). */
  userClass?: string;
  /** Option 60, the vendor class ("HTTPClient:Arch:00016:UNDI:003001" from UEFI HTTP boot). */
  vendorClass?: string;
  /** kea-dhcp4's port (-p) and the port it answers relays on (-P). */
  serverPort: number;
  clientPort: number;
  /** How long to wait for the offer (then undefined). */
  waitMs?: number;
}

const ip = (buf: Buffer, at: number) => [...buf.subarray(at, at + 4)].join('.');

/** A relayed DHCPDISCOVER as a relay agent sends it (hops 1, giaddr set), sent over loopback. */
export function discoverPacket(options: DiscoverOptions, xid: Buffer): Buffer {
  const head = Buffer.alloc(240);
  head[0] = 1; // BOOTREQUEST
  head[1] = 1; // Ethernet
  head[2] = 6;
  head[3] = 1; // one relay
  xid.copy(head, 4);
  Buffer.from(options.giaddr.split('.').map(Number)).copy(head, 24);
  Buffer.from(options.mac.replace(/[:-]/g, ''), 'hex').copy(head, 28);
  Buffer.from([99, 130, 83, 99]).copy(head, 236);
  const opts: number[] = [53, 1, 1];
  if (options.arch !== undefined) opts.push(93, 2, options.arch >> 8, options.arch & 255);
  if (options.userClass) opts.push(77, options.userClass.length, ...Buffer.from(options.userClass, 'latin1'));
  if (options.vendorClass) opts.push(60, options.vendorClass.length, ...Buffer.from(options.vendorClass, 'latin1'));
  opts.push(55, 4, 1, 3, 6, 67, 255);
  return Buffer.concat([head, Buffer.from(opts)]);
}

export function parseOffer(packet: Buffer): Offer {
  const options = new Map<number, Buffer>();
  for (let at = 240; at < packet.length; ) {
    const code = packet[at]!;
    if (code === 255) break;
    if (code === 0) {
      at++;
      continue;
    }
    const length = packet[at + 1]!;
    options.set(code, packet.subarray(at + 2, at + 2 + length));
    at += 2 + length;
  }
  const file = packet.subarray(108, 236);
  const end = file.indexOf(0);
  return {
    yiaddr: ip(packet, 16),
    siaddr: ip(packet, 20),
    file: file.subarray(0, end < 0 ? file.length : end).toString('latin1'),
    options,
  };
}

/** Send one relayed DHCPDISCOVER to kea-dhcp4 and wait for its OFFER (undefined when none comes). */
export async function discover(options: DiscoverOptions): Promise<Offer | undefined> {
  const socket = dgram.createSocket({ type: 'udp4', reuseAddr: true });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(options.clientPort, options.giaddr, () => resolve());
    });
    const xid = randomBytes(4);
    const answer = new Promise<Offer | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), options.waitMs ?? 2000);
      socket.on('message', (message) => {
        // An OFFER (53 = 2) for this transaction.
        if (message.length < 240 || !message.subarray(4, 8).equals(xid)) return;
        const offer = parseOffer(message);
        if (offer.options.get(53)?.[0] !== 2) return;
        clearTimeout(timer);
        resolve(offer);
      });
    });
    socket.send(discoverPacket(options, xid), options.serverPort, '127.0.0.1');
    return await answer;
  } finally {
    socket.close();
  }
}
