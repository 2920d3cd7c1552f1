import type { Clock, Logger, PluginEvents } from 'ogserve';
import type { GuestAgent } from '../agents';
import type { DiscoveryBoot, UnknownPc, UnknownPcs } from '../boot';
import type { ClientView, Inventory } from '../inventory';
import type { DiscoveredPc } from './entities/discovered';
import { colonMac } from './events';
import { PerMinute, slash24 } from './limits';
import type { DiscoveredPcAnswer, EnrolSettings } from './schemas';
import { type DiscoveredStore, type Report, componentsOf, disksOf } from './store';

/** Serial numbers firmware fills in when it has none: never a match. */
const noSerial = /^(|0+|none|n\/a|default string|not specified|to be filled by o\.e\.m\.|system serial number|chassis serial number)$/i;

/** How long an address whose agent matched nothing is refused before it is asked about again. */
const coolDownMs = 10 * 60_000;

export interface DiscoveryDeps {
  store: DiscoveredStore;
  inventory: Inventory;
  unknown: UnknownPcs;
  events: PluginEvents;
  log: Logger;
  clock: Clock;
  config: EnrolSettings;
}

/**
 * PCs nobody registered, from their discovery boot to their hardware: the boot plugin asks
 * how an unknown PC of a `discover` network boots (the row is made, the live image named),
 * and the agents plugin what to do with an agent from an address no client has (taken as a
 * guest when a discovered PC booted from there lately: refresh, then hardware, at once).
 * Guests are held here by MAC, for the power commands and to let them go.
 */
export class Discovery {
  private readonly guests = new Map<string, GuestAgent>();
  private readonly agentsLimit: PerMinute;
  private readonly coolDown = new Map<string, number>();
  /** Networks whose limit was logged, until when it is not logged again. */
  private readonly limitSaid = new Map<string, number>();
  private readonly working = new Set<Promise<unknown>>();
  /** MACs an assignment is making clients: their `client.saved` leaves their guests to it. */
  readonly assigning = new Set<string>();
  /** Called once a PC is discovered (its hardware read) and is not a client found again: the rules. */
  onDiscovered?: (mac: string) => Promise<void>;

  constructor(private readonly d: DiscoveryDeps) {
    this.agentsLimit = new PerMinute(d.config.agents_per_minute, () => d.clock.now());
  }

  /** The boot plugin's question: an unknown PC boots the discovery live image, and is kept. */
  async boot(pc: UnknownPc): Promise<DiscoveryBoot> {
    const network = pc.network || slash24(pc.address);
    const { first, forgotten } = await this.d.store.booted(pc.mac, pc.address, network, this.d.clock.now(), this.d.config.max_pending);
    if (forgotten.length > 0) {
      for (const mac of forgotten) this.release(mac, 'forgotten: more PCs are discovered than enrol.max_pending');
      void this.d.events.emit('discovered.forgotten', { macs: forgotten.map(colonMac), reason: 'limit' });
    }
    void this.d.events.emit('discovered.booted', { mac: colonMac(pc.mac), address: pc.address, network, first });
    return { livedir: this.d.config.livedir };
  }

  /**
   * The agents plugin's question, for an agent from an address no client has: taken for the
   * discovered PC that booted from there lately (or whose agent was there lately); in a
   * discovery network without one, taken to read its serial number (a client found again
   * at another address); else refused. At most `agents_per_minute` per network.
   */
  async gate(ip: string): Promise<((guest: GuestAgent) => void) | undefined> {
    const now = this.d.clock.now();
    if ((this.coolDown.get(ip) ?? 0) > now) return undefined;
    this.coolDown.delete(ip);
    const row = await this.d.store.byIp(ip);
    if (row && now - Math.max(row.booted, row.agentAt ?? 0) <= this.d.config.boot_window_s * 1000) {
      if (!this.agentsLimit.take(row.network)) return this.overLimit(ip, row.network);
      return (guest) => this.track(this.discovered(guest, row));
    }
    const setting = this.d.unknown.discoveryNetwork(ip);
    if (setting === undefined) return undefined;
    const network = setting || slash24(ip);
    if (!this.agentsLimit.take(network)) return this.overLimit(ip, network);
    return (guest) => this.track(this.foundAgain(guest, network));
  }

  /** The guest of a discovered PC, while its agent is connected here. */
  guest(mac: string): GuestAgent | undefined {
    return this.guests.get(mac);
  }

  /** Every discovered PC as GET /discovered answers it, the first seen first. */
  async list(): Promise<DiscoveredPcAnswer[]> {
    const rows = await this.d.store.all();
    const moved = new Map<number, ClientView | null>();
    for (const row of rows)
      if (row.movedClient !== null && !moved.has(row.movedClient))
        moved.set(row.movedClient, await this.d.inventory.clientById(row.movedClient));
    return rows.map((row) => view(row, this.guests.has(row.mac), row.movedClient === null ? null : (moved.get(row.movedClient) ?? null)));
  }

  /** Forget these PCs (switched off first when asked): the MACs that were discovered. */
  async forget(macs: string[], poweroff: boolean): Promise<string[]> {
    const forgotten = await this.d.store.forget(macs);
    for (const mac of forgotten) {
      const guest = this.guests.get(mac);
      if (guest && poweroff) await guest.power('poweroff').catch((error: Error) => this.d.log.warn({ mac, err: error }, error.message));
      this.release(mac, 'forgotten');
    }
    if (forgotten.length > 0) void this.d.events.emit('discovered.forgotten', { macs: forgotten.map(colonMac), reason: 'asked' });
    return forgotten;
  }

  /**
   * A client saved with a discovered PC's MAC (added another way, or assigned on another
   * instance): the PC is not new any more, and its agent, let go, connects again as the client's.
   */
  async clientSaved(client: ClientView): Promise<void> {
    if (this.assigning.has(client.mac)) return;
    const forgotten = await this.d.store.forget([client.mac]);
    this.release(client.mac, `it is client ${client.name} now`);
    if (forgotten.length > 0) void this.d.events.emit('discovered.forgotten', { macs: forgotten.map(colonMac), reason: 'client' });
  }

  /** Let a guest go: closed (its agent connects again, as a client if it is one now). */
  release(mac: string, reason: string): void {
    const guest = this.guests.get(mac);
    this.guests.delete(mac);
    guest?.close(reason);
  }

  /** The work under way (reading a guest's hardware) ends before the database closes. */
  async stop(): Promise<void> {
    for (const mac of [...this.guests.keys()]) this.release(mac, 'server stopping');
    await Promise.allSettled([...this.working]);
  }

  private track(work: Promise<void>): void {
    this.working.add(work);
    const done = () => this.working.delete(work);
    work.then(done, (error: Error) => {
      done();
      this.d.log.error({ err: error }, `discovered PC's agent not handled: ${error.message}`);
    });
  }

  /** Refused for now (the agent retries a second later): said once per network and minute. */
  private overLimit(ip: string, network: string): undefined {
    const now = this.d.clock.now();
    if ((this.limitSaid.get(network) ?? 0) > now) return undefined;
    this.limitSaid.set(network, now + 60_000);
    this.d.log.info({ ip, network }, `agents of discovered PCs wait: enrol.agents_per_minute reached in ${network} (${ip} first)`);
    return undefined;
  }

  private hold(mac: string, guest: GuestAgent): void {
    const before = this.guests.get(mac);
    this.guests.set(mac, guest);
    if (before && before !== guest) before.close('replaced by a new connection of the same PC');
    void guest.closed.then(() => {
      if (this.guests.get(mac) === guest) this.guests.delete(mac);
    });
  }

  /** A discovered PC's agent: its disks and serial, then its hardware, stored; then the rules. */
  private async discovered(guest: GuestAgent, row: DiscoveredPc): Promise<void> {
    this.hold(row.mac, guest);
    await this.d.store.agentUp(row.mac, this.d.clock.now());
    const report = await this.read(guest, row.mac);
    if (!report) return;
    const client = await this.clientWithSerial(report.serial);
    report.movedClient = client?.id ?? null;
    await this.d.store.reported(row.mac, report, this.d.clock.now());
    this.reported(row.mac, guest.ip, row.network, report, client);
    if (!client) await this.onDiscovered?.(row.mac);
  }

  /** An agent in a discovery network with no discovery boot: a client at another address, by its serial, or nothing. */
  private async foundAgain(guest: GuestAgent, network: string): Promise<void> {
    const configuration = await this.configuration(guest, undefined);
    const client = configuration && (await this.clientWithSerial(configuration.serial));
    if (!configuration || !client || client.ip === guest.ip) {
      this.coolDown.set(guest.ip, this.d.clock.now() + coolDownMs);
      this.d.log.info(
        { ip: guest.ip },
        `agent at ${guest.ip} closed: no discovered PC booted there, nor does its serial number name a client`,
      );
      guest.close('not a discovered PC');
      return;
    }
    const hardware = await this.hardware(guest, undefined);
    if (!hardware) return;
    await this.d.store.foundAgain(client.mac, guest.ip, network, this.d.clock.now(), client.id);
    this.hold(client.mac, guest);
    const report = { ...configuration, hardware, movedClient: client.id };
    await this.d.store.reported(client.mac, report, this.d.clock.now());
    this.reported(client.mac, guest.ip, network, report, client);
  }

  private reported(mac: string, ip: string, network: string, report: Report, client: ClientView | null): void {
    const model = report.hardware.find((c) => c.type === 'mod')?.description ?? '';
    this.d.log.info(
      { mac: colonMac(mac), ip, model, moved: client?.ip },
      `discovered PC ${colonMac(mac)} at ${ip}: ${model || 'no model'}`,
    );
    void this.d.events.emit('discovered.reported', {
      mac: colonMac(mac),
      address: ip,
      network,
      model,
      serial_number: report.serial,
      ...(client ? { moved: client.ip } : {}),
    });
  }

  /** Refresh (disks, serial) then hardware; undefined (logged, the guest let go) when the agent cannot say. */
  private async read(guest: GuestAgent, mac: string): Promise<Report | undefined> {
    const configuration = await this.configuration(guest, mac);
    const hardware = configuration && (await this.hardware(guest, mac));
    return hardware ? { ...configuration, hardware, movedClient: null } : undefined;
  }

  /** Its serial number and disks (none from a Linux or Windows agent, which say only their kind). */
  private async configuration(guest: GuestAgent, mac: string | undefined): Promise<Pick<Report, 'serial' | 'disks'> | undefined> {
    try {
      const configuration = await guest.refresh();
      if (configuration.kind !== 'disks') return { serial: '', disks: [] };
      return {
        serial: configuration.serialNumber ?? '',
        disks: configuration.entries.filter((e) => e.partition === 0).map((e) => ({ disk: e.disk, size: Number(e.size) })),
      };
    } catch (error) {
      this.unread(guest, mac, error as Error);
      return undefined;
    }
  }

  private async hardware(guest: GuestAgent, mac: string | undefined): Promise<Report['hardware'] | undefined> {
    try {
      return await guest.hardware();
    } catch (error) {
      this.unread(guest, mac, error as Error);
      return undefined;
    }
  }

  private unread(guest: GuestAgent, mac: string | undefined, error: Error): void {
    this.d.log.warn({ ip: guest.ip, err: error }, `discovered PC's agent at ${guest.ip} did not report: ${error.message}`);
    if (mac) this.release(mac, 'no report');
    else guest.close('no report');
  }

  private async clientWithSerial(serial: string): Promise<ClientView | null> {
    if (noSerial.test(serial.trim())) return null;
    for (const client of await this.d.inventory.allClients()) if (client.serialNumber === serial) return client;
    return null;
  }
}

function view(row: DiscoveredPc, connected: boolean, moved: ClientView | null): DiscoveredPcAnswer {
  const time = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  const hardware = componentsOf(row);
  return {
    mac: colonMac(row.mac),
    ip: row.ip,
    network: row.network,
    state: row.reportedAt === null ? 'booted' : 'discovered',
    connected,
    first_seen: time(row.firstSeen)!,
    booted_at: time(row.booted)!,
    agent_at: time(row.agentAt),
    discovered_at: time(row.reportedAt),
    serial_number: row.serial,
    model: hardware.find((c) => c.type === 'mod')?.description ?? '',
    hardware,
    disks: disksOf(row),
    moved: moved ? { id: moved.id, ip: moved.ip, name: moved.name, mac: colonMac(moved.mac) } : null,
  };
}
