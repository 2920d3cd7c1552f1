import {
  inject,
  injectable,
  isIpv4,
  isNetmask,
  PluginClusterView,
  PluginConfig,
  PluginEventBus,
  type PluginCluster,
  type PluginEvents,
} from 'ogserve';
import { AgentLink, type Asker } from '../agents';
import { type ClientView, Inventory } from '../inventory';
import { destinations, sharedBroadcasts, type WakeType } from './addresses';
import { magicPacket } from './magic-packet';
import { PendingWakes } from './pending';
import { type ClientDatagram, WakeRouting } from './routing';
import { WakeRuns } from './runs';
import type { SendResult, Target } from './run';
import type { WolSettings } from './schemas';

/** Where the datagrams go out: this instance's socket, or the instance that reaches each client. */
export interface DatagramSender {
  sendAll(datagrams: ClientDatagram[], port: number): Promise<(Error | undefined)[]>;
}

/** The addresses of a POST /wol request that were not woken, by reason, in request order. */
export interface Skipped {
  /** not a dotted IPv4 address */
  malformed: string[];
  /** no client in the database has this IP */
  not_found: string[];
  /** its agent is connected: it is awake, and keeps its state */
  connected: string[];
  /** its stored MAC, IP or room netmask cannot address a packet (or only to 255.255.255.255, not allowed) */
  invalid_record: string[];
  /** the kernel refused every packet for it */
  send_failed: string[];
}

export interface WakeReport {
  /** The wake run that sends the packets (GET /wol/runs/<id>); null when no client is woken. */
  run: number | null;
  /**
   * Woken: each is in the run, and a magic packet left for it (WOL_SENT until its agent
   * connects), or, paced into a later burst, will leave.
   */
  sent: string[];
  skipped: Skipped;
}

export interface WakeSettings {
  port: number;
  interfaceName?: string;
  limitedBroadcast: boolean;
}

/**
 * POST /wol: resolve the addresses and start a wake run of the clients to wake, which sends
 * their magic packets (bursts, repeats, wakes again those whose agent does not connect).
 * What the run sends at once (everything, unless paced) is sent before the answer, so the
 * answer says which packets the kernel refused; packets are sent from one socket and the
 * woken clients marked WOL_SENT. A client already WOL_SENT is sent its packet again (a
 * second request usually means the first packet was lost) and its lifetime restarts.
 */
@injectable()
export class Waker {
  private readonly settings: WakeSettings;

  constructor(
    @inject(Inventory) private readonly clients: Pick<Inventory, 'clientsByIps'>,
    @inject(AgentLink) private readonly agents: Pick<AgentLink, 'isConnected'>,
    @inject(PendingWakes) private readonly pending: PendingWakes,
    @inject(PluginConfig) config: Pick<WolSettings, 'port' | 'interface' | 'limited_broadcast'>,
    /** This instance's socket, or the instance that reaches each client. */
    @inject(WakeRouting) private readonly socket: DatagramSender,
    @inject(WakeRuns) private readonly runs: WakeRuns,
    /** Told of every wake that sent packets (and how many left): the `wol.sent` event. */
    @inject(PluginEventBus) private readonly events?: Pick<PluginEvents, 'emit'>,
    /** Every instance's GET /clients shows the woken WOL_SENT. */
    @inject(PluginClusterView) private readonly cluster?: Pick<PluginCluster, 'broadcast'>,
  ) {
    this.settings = { port: config.port, interfaceName: config.interface || undefined, limitedBroadcast: config.limited_broadcast };
  }

  /** Wake `addresses` as a run; `asker` is who asked (the run and its job say it). */
  async wake(addresses: string[], type: WakeType, asker?: Asker): Promise<WakeReport> {
    const report: WakeReport = {
      run: null,
      sent: [],
      skipped: { malformed: [], not_found: [], connected: [], invalid_record: [], send_failed: [] },
    };
    const unique = [...new Set(addresses)];
    const wellFormed: string[] = [];
    for (const ip of unique) (isIpv4(ip) ? wellFormed : report.skipped.malformed).push(ip);
    const known = new Map((await this.clients.clientsByIps(wellFormed)).map((c) => [c.ip, c]));
    const shared = type === 'broadcast' ? sharedBroadcasts(this.settings.interfaceName, this.settings.limitedBroadcast) : [];

    const targets: Target[] = [];
    const netmasks = new Map<string, boolean>();
    for (const ip of wellFormed) {
      const client = known.get(ip);
      if (!client) report.skipped.not_found.push(ip);
      else if (this.agents.isConnected(ip)) report.skipped.connected.push(ip);
      else {
        const packet = packetFor(client, type, netmasks);
        const to = packet && destinations({ ip, netmask: client.room.netmask }, type, shared, this.settings.limitedBroadcast);
        if (!packet || !to) report.skipped.invalid_record.push(ip);
        else targets.push({ ip, clientId: client.id, room: client.room.id, center: client.room.centerId, packet, to });
      }
    }
    if (targets.length === 0) return report;

    const { run, first } = await this.runs.start(targets, { type, asker, send: (due, id) => this.send(due, type, id) });
    report.run = run;
    for (const { ip } of targets) {
      const result = first.get(ip);
      if (result === 'send_failed') report.skipped.send_failed.push(ip);
      else if (result === 'connected') report.skipped.connected.push(ip);
      else report.sent.push(ip);
    }
    return report;
  }

  /**
   * Send the targets' magic packets now, mark WOL_SENT those with a packet out, and say for
   * each whether a packet left (`sent`), none did (`send_failed`), or its agent connected
   * while they went out (`connected`: it keeps its real state).
   */
  private async send(targets: readonly Target[], type: WakeType, run: number): Promise<Map<string, SendResult>> {
    // Each target's packets are datagrams[first[k] .. first[k + 1]).
    const first: number[] = [];
    const datagrams: ClientDatagram[] = [];
    for (const { ip, packet, to } of targets) {
      first.push(datagrams.length);
      for (const address of to) datagrams.push({ address, packet, client: ip });
    }
    first.push(datagrams.length);

    const errors = await this.socket.sendAll(datagrams, this.settings.port);
    const results = new Map<string, SendResult>();
    const woken: string[] = [];
    let packets = 0;
    for (let k = 0; k < targets.length; k++) {
      const ip = targets[k]!.ip;
      let delivered = false;
      for (let i = first[k]!; i < first[k + 1]!; i++) {
        if (errors[i] !== undefined) continue;
        delivered = true;
        packets++;
      }
      if (!delivered) results.set(ip, 'send_failed');
      // The agent may have connected while the packets went out: it keeps its real state.
      else if (!this.agents.isConnected(ip)) {
        this.pending.mark(ip);
        results.set(ip, 'sent');
        woken.push(ip);
      } else results.set(ip, 'connected');
    }
    if (woken.length > 0) {
      void this.events?.emit('wol.sent', { run, clients: woken, type, packets });
      this.cluster?.broadcast('wol.pending', woken);
    }
    return results;
  }
}

/**
 * The client's magic packet, or undefined when its record cannot address one. Its IP has
 * passed isIpv4 already; `netmasks` holds the netmasks this request has checked (a room's
 * is shared by its clients).
 */
function packetFor(client: ClientView, type: WakeType, netmasks: Map<string, boolean>): Buffer | undefined {
  if (client.ip === '0.0.0.0' || client.ip === '255.255.255.255') return undefined;
  if (type === 'broadcast') {
    const netmask = client.room.netmask;
    let valid = netmasks.get(netmask);
    if (valid === undefined) netmasks.set(netmask, (valid = isNetmask(netmask)));
    if (!valid) return undefined;
  }
  try {
    return magicPacket(client.mac);
  } catch {
    return undefined;
  }
}
