import type { IncomingMessage } from 'node:http';

/** Where a request really comes from, through the proxies the site trusts. */
export interface RequestOrigin {
  /** Whether it reached the first hop over HTTPS (this server's TLS port, or a trusted proxy's). */
  secure: boolean;
  /** The client's address, without the IPv4-mapped prefix. */
  address: string;
}

const plain = (address: string | undefined): string => (address ?? '').replace(/^::ffff:/, '');

/**
 * The origin of a request. X-Forwarded-Proto and X-Forwarded-For are believed only from a
 * proxy in `trusted` (`rest.trusted_proxies`): anyone else could write them. The client is
 * the last address of X-Forwarded-For that is not itself a trusted proxy.
 */
export function originOf(req: IncomingMessage, trusted: ReadonlySet<string>): RequestOrigin {
  const peer = plain(req.socket.remoteAddress);
  const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
  if (!trusted.has(peer)) return { secure: encrypted, address: peer };
  const proto = String(req.headers['x-forwarded-proto'] ?? '')
    .split(',')[0]!
    .trim()
    .toLowerCase();
  const hops = String(req.headers['x-forwarded-for'] ?? '')
    .split(',')
    .map((hop) => plain(hop.trim()))
    .filter(Boolean);
  let address = peer;
  while (hops.length > 0 && trusted.has(address)) address = hops.pop()!;
  return { secure: proto === '' ? encrypted : proto === 'https', address };
}
