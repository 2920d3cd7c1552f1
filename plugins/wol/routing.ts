import {
  inject,
  injectable,
  ipv4ToInt,
  isIpv4,
  type Logger,
  PluginClusterView,
  PluginConfig,
  PluginLog,
  type PluginCluster,
  StartupError,
} from 'ogserve';
import { LocalSender } from './local-sender';
import type { WolSettings } from './schemas';
import type { Datagram } from './sender';

/** A datagram, with the client it wakes (its address decides which instance sends it). */
export interface ClientDatagram extends Datagram {
  client: string;
}

interface Network {
  base: number;
  mask: number;
}

interface Forwarded {
  port: number;
  /** [destination address, magic packet as hex] */
  datagrams: [string, string][];
}

/** An IPv4 network written `a.b.c.d/len`, or undefined when it is not one. */
export function parseNetwork(text: string): Network | undefined {
  const [address, length, ...rest] = text.split('/');
  const bits = Number(length);
  if (rest.length > 0 || !address || !isIpv4(address) || !/^\d{1,2}$/.test(length ?? '') || bits > 32) return undefined;
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return { base: (ipv4ToInt(address) & mask) >>> 0, mask };
}

/**
 * Which instance sends a client's magic packets: one whose `wol.networks` reach the
 * client's address (this one if it is such), or every instance when none lists a network
 * that does. Alone, this instance sends everything. The instances tell each other their
 * networks as they join.
 */
@injectable()
export class WakeRouting {
  /** Other instances' networks, by instance. */
  private readonly networks = new Map<string, Network[]>();
  /** This instance's networks (`wol.networks`). */
  private readonly own: Network[];

  constructor(
    @inject(PluginClusterView) private readonly cluster: PluginCluster,
    @inject(PluginConfig) config: Pick<WolSettings, 'networks'>,
    @inject(LocalSender) private readonly local: LocalSender,
    @inject(PluginLog) private readonly log: Logger,
  ) {
    const own = config.networks.map((text, i) => {
      const network = parseNetwork(text);
      if (!network) throw new StartupError(`wol.networks[${i}]: '${text}' is not an IPv4 network like 10.1.0.0/16`);
      return network;
    });
    this.own = own;
    const announce = (to: string) =>
      void cluster
        .send(
          to,
          'wol.networks',
          own.map(({ base, mask }) => [base, mask]),
        )
        .catch(() => undefined);
    cluster.onJoin((instance) => {
      if (instance !== cluster.self) announce(instance);
    });
    cluster.onLeave((instance) => this.networks.delete(instance));
    cluster.onReconnect(() => announce('*'));
    cluster.on<[number, number][]>('wol.networks', (list, from) =>
      this.networks.set(
        from,
        list.map(([base, mask]) => ({ base, mask })),
      ),
    );
    cluster.on<Forwarded>(
      'wol.send',
      ({ port, datagrams }) =>
        void this.local
          .sendAll(
            datagrams.map(([address, hex]) => ({ address, packet: Buffer.from(hex, 'hex') })),
            port,
          )
          .catch((error: unknown) => log.error({ err: error }, 'magic packets asked by another instance not sent')),
    );
  }

  /** Send each datagram from the instance that reaches its client; an instance that cannot be reached fails its datagrams. */
  async sendAll(datagrams: ClientDatagram[], port: number): Promise<(Error | undefined)[]> {
    if (!this.cluster.shared) return this.local.sendAll(datagrams, port);
    const here: number[] = [];
    const away = new Map<string, number[]>();
    for (const [i, datagram] of datagrams.entries()) {
      const sender = this.senderOf(datagram.client);
      if (sender === this.cluster.self) here.push(i);
      else {
        const group = away.get(sender);
        if (group) group.push(i);
        else away.set(sender, [i]);
      }
      // No instance reaches it: every one sends (this one included).
      if (sender === '*') here.push(i);
    }
    const results: (Error | undefined)[] = new Array(datagrams.length).fill(undefined);
    const local = await this.local.sendAll(
      here.map((i) => datagrams[i]!),
      port,
    );
    for (const [k, i] of here.entries()) results[i] = local[k];
    for (const [to, indexes] of away) {
      const forwarded: Forwarded = { port, datagrams: indexes.map((i) => [datagrams[i]!.address, datagrams[i]!.packet.toString('hex')]) };
      const handed = await this.cluster.send(to, 'wol.send', forwarded).then(
        () => undefined,
        (error: Error) => error,
      );
      if (!handed) continue;
      this.log.warn({ to, err: handed }, `magic packets for instance ${to} not handed over: ${handed.message}`);
      // Sent here too (everywhere), they left anyway; only those for one other instance fail.
      if (to !== '*') for (const i of indexes) results[i] = handed;
    }
    return results;
  }

  /** This instance, another one, or '*' (every instance). */
  private senderOf(client: string): string {
    const ip = ipv4ToInt(client);
    const reaching: string[] = [];
    for (const name of this.cluster.members()) {
      const networks = name === this.cluster.self ? this.own : (this.networks.get(name) ?? []);
      if (networks.some(({ base, mask }) => (ip & mask) >>> 0 === base)) reaching.push(name);
    }
    if (reaching.length === 0) return '*';
    return reaching.includes(this.cluster.self) ? this.cluster.self : reaching.sort()[0]!;
  }
}
