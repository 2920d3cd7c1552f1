import type { EntityManager } from '@mikro-orm/core';
import { type Database, ErrorCode, type Logger, type PluginCluster, badRequest, execute } from 'ogserve';
import { type ClientView, type Inventory, RoomEntity } from '../inventory';
import type { KernelSignatures } from '../live';
import { SecureBootClientEntity, SecureBootRoomEntity } from './entities/secure-boot';

/** The UEFI first stages (iPXE) a Secure Boot PC is given shim in place of: its firmware refuses them (unsigned). */
export const uefiLoaders: ReadonlySet<string> = new Set(['snponly.efi', 'ipxe.efi']);
/** What such a PC gets: shim, which then asks for `grubx64.efi` beside it. */
export const secureLoader = 'shimx64.efi';

/** A PC set to boot Secure Boot whose live image's kernel shim will refuse. */
export interface UnsignedLive {
  client: string;
  livedir: string;
  problem: string;
}

export interface SecureBootListing {
  rooms: { id: number; name: string }[];
  clients: { client: string; secure_boot: boolean }[];
  /** PCs that boot Secure Boot with an ogLive whose kernel is not signed: they stop at GRUB ("bad shim signature"). */
  unsigned: UnsignedLive[];
}

/** The cluster topic that tells the other instances the settings changed. */
const changedTopic = 'tftp.secure-boot.changed';

/**
 * Which PCs boot the Secure Boot chain: every UEFI PC of a room set to it, unless the PC's own
 * setting says otherwise; a PC set on in any room. Kept in memory (a request for a loader asks
 * it), read again after each change here or on another instance.
 */
export class SecureBootSettings {
  private rooms = new Set<number>();
  private clients = new Map<number, boolean>();

  constructor(
    private readonly db: Database,
    private readonly inventory: Inventory,
    private readonly signatures: KernelSignatures,
    private readonly cluster: PluginCluster,
    log: Logger,
  ) {
    cluster.on(changedTopic, () => {
      this.load().catch((error: Error) => log.warn({ err: error }, `Secure Boot settings not read again: ${error.message}`));
    });
  }

  async load(given?: EntityManager): Promise<void> {
    const em = this.db.unit(given);
    const [rooms, clients] = await Promise.all([
      execute<{ room_id: number }>(em, 'select room_id from tftp_secure_boot_rooms'),
      execute<{ client_id: number; secure_boot: unknown }>(em, 'select client_id, secure_boot from tftp_secure_boot_clients'),
    ]);
    this.rooms = new Set(rooms.map((r) => Number(r.room_id)));
    this.clients = new Map(clients.map((c) => [Number(c.client_id), Boolean(Number(c.secure_boot))]));
  }

  /** Whether this PC boots the Secure Boot chain. */
  isOn(client: ClientView): boolean {
    return this.clients.get(client.id) ?? this.rooms.has(client.room.id);
  }

  /** Whether the PC at this address does (none there: no). */
  async forAddress(ip: string): Promise<boolean> {
    if (this.rooms.size === 0 && this.clients.size === 0) return false;
    const client = await this.inventory.clientByIp(ip);
    return client ? this.isOn(client) : false;
  }

  /**
   * Set rooms (true: on; false or null: off) and PCs (true or false: their own setting; null:
   * their room's), in one transaction. Answers the addresses no PC has.
   */
  async set(change: { rooms?: number[]; clients?: string[]; secure_boot: boolean | null }): Promise<{ unknown: string[] }> {
    const rooms = [...new Set(change.rooms ?? [])];
    for (const id of rooms)
      if (!(await this.inventory.scopeExists({ type: 'room', id })))
        throw badRequest(ErrorCode.unknownId, `no room with id ${id}`, 'rooms');
    const clients = await this.inventory.clientsByIps(change.clients ?? []);
    const ids = [...new Set(clients.map((c) => c.id))];
    await this.db.transactional(async (em) => {
      if (rooms.length > 0) {
        await em.nativeDelete(SecureBootRoomEntity, { room: { $in: rooms } });
        if (change.secure_boot === true)
          for (const id of rooms) await em.insert(SecureBootRoomEntity, { room: em.getReference(RoomEntity, id) });
      }
      if (ids.length > 0) {
        await em.nativeDelete(SecureBootClientEntity, { client: { $in: ids } });
        if (change.secure_boot !== null)
          for (const id of ids)
            await em.insert(SecureBootClientEntity, { client: this.inventory.clientRef(em, id), secureBoot: change.secure_boot });
      }
    });
    await this.load();
    this.cluster.broadcast(changedTopic, {});
    const known = new Set(clients.map((c) => c.ip));
    return { unknown: [...new Set(change.clients ?? [])].filter((ip) => !known.has(ip)) };
  }

  async listing(given?: EntityManager): Promise<SecureBootListing> {
    const em = this.db.unit(given);
    const rooms = await execute<{ id: number; name: string }>(
      em,
      'select r.id as id, r.name as name from tftp_secure_boot_rooms s join rooms r on r.id = s.room_id order by r.id',
    );
    const clients = await execute<{ ip: string; secure_boot: unknown }>(
      em,
      'select c.ip as ip, s.secure_boot as secure_boot from tftp_secure_boot_clients s join clients c on c.id = s.client_id order by c.ip',
    );
    return {
      rooms: rooms.map((r) => ({ id: Number(r.id), name: String(r.name) })),
      clients: clients.map((c) => ({ client: String(c.ip), secure_boot: Boolean(Number(c.secure_boot)) })),
      unsigned: await this.unsigned(),
    };
  }

  /** The Secure Boot PCs whose ogLive's kernel is not signed: shim stops them at GRUB. */
  private async unsigned(): Promise<UnsignedLive[]> {
    if (this.rooms.size === 0 && this.clients.size === 0) return [];
    const found: UnsignedLive[] = [];
    const verdicts = new Map<string, Promise<{ signed: boolean | null; problem: string }>>();
    for (const client of await this.inventory.allClients()) {
      if (!this.isOn(client) || !client.livedir) continue;
      let verdict = verdicts.get(client.livedir);
      if (!verdict) verdicts.set(client.livedir, (verdict = this.signatures.of(client.livedir)));
      const { signed, problem } = await verdict;
      if (signed !== true) found.push({ client: client.ip, livedir: client.livedir, problem: problem || 'not signed' });
    }
    return found.sort((a, b) => a.client.localeCompare(b.client));
  }
}
