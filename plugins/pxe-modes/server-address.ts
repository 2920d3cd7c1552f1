import os from 'node:os';

/**
 * The address PCs reach the server at, put in their boot parameters: the configured
 * `server_ip`, else the REST listen address unless it is the wildcard, else the first
 * non-loopback IPv4 address of this host (loopback as the last resort, e.g. in a container).
 */
export function serverAddress(configured: string, restIp: string): string {
  if (configured) return configured;
  if (restIp && restIp !== '0.0.0.0') return restIp;
  for (const addresses of Object.values(os.networkInterfaces())) {
    const found = addresses?.find((a) => a.family === 'IPv4' && !a.internal);
    if (found) return found.address;
  }
  return '127.0.0.1';
}
