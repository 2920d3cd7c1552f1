import { type ChosenAddress, hostAddress } from 'ogserve';

/**
 * The address PCs reach the server at, put in their boot parameters: the configured
 * `server_ip`, else core's choice of this host's address (rest.ip unless it is the wildcard,
 * else the first non-loopback IPv4 address, loopback as the last resort).
 */
export function serverAddress(configured: string, restIp: string): ChosenAddress {
  if (configured) return { address: configured, how: 'pxe-modes.server_ip' };
  return hostAddress(restIp);
}
