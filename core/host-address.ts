import os from 'node:os';
import { isIpv4 } from './formats';

/** An address this host is reached at, and how it was chosen (for the start log). */
export interface ChosenAddress {
  address: string;
  how: string;
}

/**
 * The address PCs reach this server at: `rest.ip` when it names one address, else the first
 * non-loopback IPv4 address of this host (in the order the system lists interfaces), else
 * loopback, which only this host can reach.
 */
export function hostAddress(restIp: string, interfaces = os.networkInterfaces()): ChosenAddress {
  if (isIpv4(restIp) && restIp !== '0.0.0.0') return { address: restIp, how: 'rest.ip' };
  for (const [name, addresses] of Object.entries(interfaces)) {
    const found = addresses?.find((a) => a.family === 'IPv4' && !a.internal);
    if (found) return { address: found.address, how: `first non-loopback address of this host, interface ${name}` };
  }
  return { address: '127.0.0.1', how: 'loopback: this host has no other IPv4 address' };
}
