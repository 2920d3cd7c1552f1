/** A client read from an ISC dhcpd `host` block. */
export interface DhcpHost {
  name: string;
  mac: string;
  ip: string;
}

/**
 * The `host NAME { hardware ethernet MAC; fixed-address IP; }` blocks of a pasted dhcpd.conf
 * (ogCP's import): comments and other statements are skipped; a block without both a MAC and
 * an address is reported by name.
 */
export function parseDhcpHosts(text: string): { hosts: DhcpHost[]; incomplete: string[] } {
  const hosts: DhcpHost[] = [];
  const incomplete: string[] = [];
  const withoutComments = text.replace(/#[^\n]*/g, '');
  for (const match of withoutComments.matchAll(/host\s+([^\s{]+)\s*\{([^}]*)\}/g)) {
    const [, name, body] = match as unknown as [string, string, string];
    const mac = /hardware\s+ethernet\s+([0-9a-fA-F:.-]+)\s*;/.exec(body)?.[1];
    const ip = /fixed-address\s+([0-9.]+)\s*;/.exec(body)?.[1];
    if (mac && ip) hosts.push({ name: name.replace(/^"|"$/g, ''), mac, ip });
    else incomplete.push(name);
  }
  return { hosts, incomplete };
}
