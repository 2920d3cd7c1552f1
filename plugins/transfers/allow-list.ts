import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { StartupError } from 'ogserve';

/**
 * The networks a byte path serves (`boot.allow`, `repository.allow`): empty allows every
 * address. Entries are `10.1.0.0/16` or one address; a bad one stops the start naming `key`.
 */
export function allowList(entries: readonly string[], key: string): (address: string) => boolean {
  if (entries.length === 0) return () => true;
  const list = new BlockList();
  entries.forEach((entry, i) => {
    const [address = '', prefix, extra] = entry.split('/');
    const type = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : undefined;
    const bits = prefix === undefined ? (type === 'ipv4' ? 32 : 128) : Number(prefix);
    const badPrefix = prefix !== undefined && !/^[0-9]{1,3}$/.test(prefix);
    if (!type || extra !== undefined || badPrefix || bits > (type === 'ipv4' ? 32 : 128))
      throw new StartupError(`${key}[${i}]: '${entry}' is not a network like 10.1.0.0/16 or an address`);
    list.addSubnet(address, bits, type);
  });
  return (address) => {
    const type = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : undefined;
    return type !== undefined && list.check(address, type);
  };
}
