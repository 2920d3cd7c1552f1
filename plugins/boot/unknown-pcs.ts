import { StartupError, ipv4ToInt, isIpv4 } from 'ogserve';
import { modeName } from './schemas';

/** The `boot.unknown_client` value that hands an unknown PC to the plugin that discovers PCs. */
export const discoverMode = 'discover';

/** A PC the inventory does not know, asking for its script where `boot.unknown_client` says `discover`. */
export interface UnknownPc {
  /** 12 lower-case hex digits. */
  mac: string;
  /** The address its request came from (the one its DHCP server gave it, unless a proxy is between). */
  address: string;
  /** The network of `boot.unknown_client` it came from (`10.1.3.0/24`), or '' where the setting is one for every network. */
  network: string;
}

/** What such a PC boots: the live image, with the discovery flag; undefined boots it from its disk. */
export type DiscoveryBoot = { livedir: string } | undefined;

export type DiscoveryHandler = (pc: UnknownPc) => Promise<DiscoveryBoot>;

/** One network's setting: its prefix as numbers, longest first. */
interface NetworkMode {
  cidr: string;
  network: number;
  mask: number;
  mode: string;
}

/**
 * `boot.unknown_client`: one mode for every unknown PC (`"local"`), or one per network of
 * the address its request comes from (`{"10.1.3.0/24": "discover", "*": "local"}`, the
 * longest prefix that holds it winning, `*` elsewhere, `local` without `*`). Unknown PCs of
 * a `discover` network are handed to the plugin that serves it (the enrol plugin), through
 * this service, which the boot plugin exports.
 */
export class UnknownPcs {
  private readonly networks: NetworkMode[] = [];
  private readonly otherwise: string;
  private handler?: DiscoveryHandler;

  constructor(setting: string | Record<string, string>) {
    if (typeof setting === 'string') {
      this.otherwise = setting;
      return;
    }
    this.otherwise = 'local';
    for (const [key, mode] of Object.entries(setting)) {
      if (!modeName.test(mode))
        throw new StartupError(`boot.unknown_client.${key}: '${mode}' is not a mode name such as local or discover`);
      if (key === '*') {
        this.otherwise = mode;
        continue;
      }
      const [address, bits] = key.split('/');
      const prefix = Number(bits);
      if (!address || !isIpv4(address) || !/^[0-9]{1,2}$/.test(bits ?? '') || prefix > 32)
        throw new StartupError(`boot.unknown_client: '${key}' is not a network such as 10.1.3.0/24, nor '*'`);
      const mask = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
      this.networks.push({ cidr: key, network: (ipv4ToInt(address) & mask) >>> 0, mask, mode });
    }
    this.networks.sort((a, b) => b.mask - a.mask);
  }

  /** The mode an unknown PC at `address` gets, and the network of the setting that gave it ('' for one setting everywhere or `*`). */
  modeAt(address: string): { mode: string; network: string } {
    if (isIpv4(address)) {
      const ip = ipv4ToInt(address);
      for (const n of this.networks) if ((ip & n.mask) >>> 0 === n.network) return { mode: n.mode, network: n.cidr };
    }
    return { mode: this.otherwise, network: '' };
  }

  /** Whether any unknown PC is discovered (a `discover` setting anywhere). */
  get discovers(): boolean {
    return this.otherwise === discoverMode || this.networks.some((n) => n.mode === discoverMode);
  }

  /** Whether an unknown PC at `address` would be discovered, and in which network (as `modeAt`). */
  discoveryNetwork(address: string): string | undefined {
    const { mode, network } = this.modeAt(address);
    return mode === discoverMode ? network : undefined;
  }

  /** The plugin that discovers PCs says how each boots; only one may (`by` names it). */
  discoverWith(handler: DiscoveryHandler, by: string): void {
    if (this.handler) throw new StartupError(`boot: ${by} asks to discover unknown PCs, which another plugin does already`);
    this.handler = handler;
  }

  get handled(): boolean {
    return this.handler !== undefined;
  }

  /** How `pc` boots; undefined (its disk) when no plugin discovers, or it says so. */
  discover(pc: UnknownPc): Promise<DiscoveryBoot> {
    return this.handler ? this.handler(pc) : Promise.resolve(undefined);
  }
}
