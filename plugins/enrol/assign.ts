import type { IncomingMessage } from 'node:http';
import { ErrorCode, type Logger, type PluginEvents, badRequest, compile, normalizeMac } from 'ogserve';
import type { AuditChange } from '../audit';
import type { AgentCommands, Asker, HardwareInventory } from '../agents';
import type { BatchRefusal, ClientBatch, ClientView, Inventory } from '../inventory';
import { addressesFor } from './addresses';
import type { Discovery } from './discovery';
import type { DiscoveredPc } from './entities/discovered';
import { colonMac } from './events';
import { defaultPattern, namesFrom } from './names';
import type { RestoreAfter } from './restore';
import type { AssignRequest } from './schemas';
import { type DiscoveredStore, componentsOf } from './store';

export interface AssignDeps {
  store: DiscoveredStore;
  discovery: Discovery;
  inventory: Inventory;
  batch: ClientBatch;
  hardware: HardwareInventory;
  commands: AgentCommands;
  restore: RestoreAfter;
  events: PluginEvents;
  log: Logger;
}

/** Who asked and where from: the request (for its audit entry), the rule, the job's asker. */
export interface AssignOrigin {
  req?: IncomingMessage;
  log?: Logger;
  asker?: Asker;
  /** The rule's number (from 1) when a rule assigns. */
  rule?: number;
}

export interface Assigned {
  clients: { mac: string; ip: string; name: string }[];
  dry_run: boolean;
  warnings?: string[];
  restore_waiting?: string[];
}

/** The request's field a client row's field answers for, when a row is refused. */
const fieldOfRow: Record<string, string> = { name: 'names', ip: 'addresses', boot: 'mode', room: 'room', mac: 'macs' };

/**
 * Discovered PCs made clients of a room in one transaction (their rows go in it too): names
 * from the pattern, addresses as asked, the boot mode, the serial and hardware they reported.
 * Then each reboots into its own mode (or its agent is let go to connect again), and the
 * restore asked waits for their agents. Kea's reservations follow the inventory (dhcp plugin).
 */
export class Assigner {
  constructor(private readonly d: AssignDeps) {}

  async assign(request: AssignRequest, origin: AssignOrigin = {}): Promise<Assigned> {
    const macs = [...new Set(request.macs.map(normalizeMac))];
    const pcs = Assigner.ordered(await this.pcs(macs), request.order);
    const room = await this.d.inventory.room(Number(request.room));
    if (!room) throw badRequest(ErrorCode.unknownId, `no room with id ${request.room}`, 'room');
    const restore = this.restoreOf(request.restore);

    const clients = [...(await this.d.inventory.allClients())];
    const names = namesFrom(
      request.names ?? defaultPattern,
      pcs.map((pc) => pc.mac),
      new Set(clients.map((c) => c.name)),
      request.start ?? 1,
    );
    const taken = new Map<string, string>(clients.map((c) => [c.ip, `client ${c.name}`]));
    for (const other of await this.d.store.all())
      if (!macs.includes(other.mac)) taken.set(other.ip, `discovered PC ${colonMac(other.mac)}`);
    const ips = addressesFor(pcs, request.addresses ?? 'current', room, taken);
    const rows = pcs.map((pc, i) => ({
      ip: ips[i],
      mac: pc.mac,
      room: room.id,
      name: names[i],
      ...(request.mode === undefined ? {} : { boot: request.mode }),
      ...(pc.serial ? { serial_number: pc.serial.slice(0, 64) } : {}),
    }));
    const planned = pcs.map((pc, i) => ({ mac: colonMac(pc.mac), ip: ips[i]!, name: names[i]! }));
    if (request.dry_run) {
      const refused = await this.d.batch.check(rows);
      if (refused.length > 0) throw this.refusal(refused, pcs);
      return { clients: planned, dry_run: true };
    }

    for (const mac of macs) this.d.discovery.assigning.add(mac);
    let added: Awaited<ReturnType<ClientBatch['add']>>;
    try {
      added = await this.d.batch.add(rows, {
        log: origin.log,
        alongside: async (em) => {
          await this.d.store.forget(macs, em);
        },
      });
    } finally {
      for (const mac of macs) this.d.discovery.assigning.delete(mac);
    }
    if ('refused' in added) throw this.refusal(added.refused, pcs);
    const warnings = [...added.warnings];
    const made = (await this.d.inventory.clientsByIps(ips)).sort((a, b) => ips.indexOf(a.ip) - ips.indexOf(b.ip));
    for (const [i, client] of made.entries()) await this.keepHardware(client, pcs[i]!, warnings);
    for (const [i, pc] of pcs.entries()) this.letGo(pc.mac, made[i]!, request.reboot !== false);
    await this.tell(made, room.id, origin);
    if (restore) this.d.restore.start(ips, restore.command, restore.params, origin.asker);
    return {
      clients: planned,
      dry_run: false,
      ...(warnings.length > 0 ? { warnings } : {}),
      ...(restore ? { restore_waiting: ips } : {}),
    };
  }

  /** The discovered PCs of these MACs, in the order asked for: all discovered, none a client found again. */
  private async pcs(macs: string[]): Promise<DiscoveredPc[]> {
    const rows = new Map((await this.d.store.byMacs(macs)).map((r) => [r.mac, r]));
    const missing = macs.filter((mac) => !rows.has(mac));
    if (missing.length > 0)
      throw badRequest(ErrorCode.unknownId, `no discovered PC has MAC ${missing.slice(0, 5).map(colonMac).join(', ')}`, 'macs');
    const pcs = macs.map((mac) => rows.get(mac)!);
    const moved = pcs.find((pc) => pc.movedClient !== null);
    if (moved)
      throw badRequest(
        ErrorCode.conflict,
        `${colonMac(moved.mac)} reported the serial number of a client: confirm that it is that client (POST /discovered/confirm) or forget it`,
        'macs',
      );
    return pcs;
  }

  /** Arrival order (first discovery boot) unless the MACs order them. */
  static ordered(pcs: DiscoveredPc[], order: 'arrival' | 'mac' = 'arrival'): DiscoveredPc[] {
    return [...pcs].sort((a, b) => (order === 'mac' ? a.mac.localeCompare(b.mac) : a.firstSeen - b.firstSeen || a.id - b.id));
  }

  /** The image_restore command and its params, checked as POST /image/restore checks them. */
  private restoreOf(asked: Record<string, unknown> | undefined) {
    if (asked === undefined) return undefined;
    const command = this.d.commands.get('image_restore');
    if (!command) throw badRequest(ErrorCode.invalidField, 'a restore needs the images plugin', 'restore');
    const checked = compile(command.params)(asked);
    if (!checked.ok) {
      const { field, message } = checked.violation;
      throw badRequest(ErrorCode.invalidField, `restore: ${message}`, field ? `restore.${field}` : 'restore');
    }
    command.check?.(checked.value);
    return { command, params: checked.value as Record<string, unknown> };
  }

  /** The first refusal, as the request's: the PC named, the field the request set. */
  private refusal(refused: BatchRefusal[], pcs: DiscoveredPc[]): Error {
    const first = refused[0]!;
    const pc = pcs[first.index]!;
    return badRequest(first.code, `${colonMac(pc.mac)}: ${first.message}`, fieldOfRow[first.field ?? ''] ?? first.field);
  }

  /** What its agent reported, as the client's hardware inventory. */
  private async keepHardware(client: ClientView, pc: DiscoveredPc, warnings: string[]): Promise<void> {
    const items = componentsOf(pc);
    if (items.length === 0) return;
    await this.d.hardware.store(client, items).catch((error: Error) => {
      warnings.push(`the hardware of ${client.ip} was not kept: ${error.message}`);
    });
  }

  /** Its discovery agent goes: rebooted into its own mode, or let go to connect again as the client. */
  private letGo(mac: string, client: ClientView, reboot: boolean): void {
    const guest = this.d.discovery.guest(mac);
    if (!guest) return;
    if (!reboot) {
      this.d.discovery.release(mac, `it is client ${client.name} now`);
      return;
    }
    guest.power('reboot').then(
      () => this.d.discovery.release(mac, 'rebooted into its own mode'),
      (error: Error) => {
        this.d.log.warn({ mac: colonMac(mac), err: error }, `new client ${client.ip} not rebooted: ${error.message}`);
        this.d.discovery.release(mac, `it is client ${client.name} now`);
      },
    );
  }

  private async tell(made: ClientView[], room: number, origin: AssignOrigin): Promise<void> {
    const clients = made.map((c) => ({ mac: colonMac(c.mac), ip: c.ip, name: c.name }));
    void this.d.events.emit(
      'discovered.assigned',
      { room, clients, ...(origin.rule === undefined ? {} : { rule: origin.rule }) },
      origin.log,
    );
    if (!origin.req) return;
    const changes: AuditChange[] = made.flatMap((c) =>
      (['ip', 'mac', 'name'] as const).map((field) => ({ entity: 'client', id: c.id, name: c.name, field, after: c[field] })),
    );
    await this.d.events.tell('audit.details', { req: origin.req, changes }, origin.log);
  }
}
