import { type CoreSettings, hostAddress } from 'ogserve';

/**
 * The address PCs fetch files at, put in their iPXE scripts: `boot.public_url` (NAT, a proxy,
 * a VM's forwarded port make it differ from the REST listener), else the REST listener's
 * address and port. Without a trailing slash.
 */
export function publicUrl(configured: string, rest: CoreSettings['rest']): string {
  if (configured) return configured.replace(/\/+$/, '');
  const port = Number(rest.port);
  return `http://${hostAddress(rest.ip).address}${port === 80 ? '' : `:${port}`}`;
}
