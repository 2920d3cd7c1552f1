import net from 'node:net';
import os from 'node:os';

/**
 * Tests listen on loopback and ephemeral ports only: never on 8888 or 8889 (where a real
 * ogserve or the reference server may run on a developer's or a migrating site's machine)
 * nor on an address other hosts reach. Installed once per process (the suite runner loads
 * it first; the server launcher imports it for focused runs); a listen that breaks the rule
 * throws, so the test that asked for it fails at once, naming the address.
 */
const installed = Symbol.for('ogserve.listen-guard');
const reserved = new Set([8888, 8889]);

/**
 * Why a listen on `host`:`port` is refused, or undefined. Every address (no host, 0.0.0.0,
 * ::) and this machine's own non-loopback addresses are refused; an address this machine
 * does not have is let through, since the listen itself fails (tests of that error use one).
 */
export function refusedListen(port: unknown, host: unknown): string | undefined {
  const address = typeof host === 'string' && host !== '' ? host : undefined;
  if (typeof port === 'number' || typeof port === 'string') {
    if (reserved.has(Number(port))) return `a test may not listen on port ${port} (the service's default ports): use port 0`;
    const everywhere = address === undefined || address === '0.0.0.0' || address === '::';
    if (everywhere || ownAddresses().has(address)) return `a test may not listen on ${address ?? 'every address'}:${port}: use 127.0.0.1`;
  }
  return undefined;
}

/** The non-loopback addresses of this machine's interfaces. */
function ownAddresses(): Set<string> {
  return new Set(
    Object.values(os.networkInterfaces())
      .flat()
      .filter((i) => i !== undefined && !i.internal)
      .map((i) => i!.address),
  );
}

function portAndHost(args: unknown[]): [unknown, unknown] {
  const [first, second] = args;
  if (typeof first === 'object' && first !== null) {
    const options = first as { port?: unknown; host?: unknown; path?: unknown };
    // A Unix socket path or an inherited handle reaches no network.
    return options.path !== undefined || options.port === undefined ? [undefined, undefined] : [options.port, options.host];
  }
  if (typeof first === 'string' && !/^\d+$/.test(first)) return [undefined, undefined];
  return [first ?? 0, typeof second === 'string' ? second : undefined];
}

const registry = globalThis as { [installed]?: boolean };
if (!registry[installed]) {
  registry[installed] = true;
  const listen = net.Server.prototype.listen;
  net.Server.prototype.listen = function guardedListen(this: net.Server, ...args: unknown[]) {
    const [port, host] = portAndHost(args);
    const refusal = refusedListen(port, host);
    if (refusal) throw new Error(refusal);
    return (listen as (...a: unknown[]) => net.Server).apply(this, args);
  } as typeof listen;
}
