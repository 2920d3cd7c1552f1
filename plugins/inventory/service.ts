import type { EntityManager } from '@mikro-orm/core';
import type { Static } from '@sinclair/typebox';
import {
  execute,
  Database,
  inject,
  injectable,
  PluginClusterView,
  PluginEventBus,
  type PluginCluster,
  type PluginEvents,
  type Logger,
  ErrorCode,
  badRequest,
} from 'ogserve';
import './client-events';
import { ClientIndex, type ClientPatch } from './client-index';
import { type Center, CenterEntity } from './entities/center';
import { type Client, ClientEntity } from './entities/client';
import { clientsWhere, type ClientView } from './client-view';
import { DiskSetupWriter } from './disk-setup-writer';
import { FleetScope } from './fleet-scope';
import { COMPUTER_FOLDER_MARKER, MAX_FOLDER_ROW_ID, parseFolderId } from './folder-ids';
import { PartitionSizes } from './partition-sizes';
import { requireAllKnown } from './lookups';
import type { ClientUpdate } from './schemas';

/** The fields a /client/add or /client/update request sets, as it sent them. */
export type ClientRequestFields = Readonly<Partial<Static<typeof ClientUpdate>>>;

/** One disk (partition 0) or partition of a client, as an agent reports it; sizes in bytes. */
export interface DiskEntry {
  disk: number;
  partition: number;
  diskType?: string;
  code: number;
  size: bigint;
  usedSize?: bigint;
  freeSize?: bigint;
  filesystem: string;
  os: string;
}

export interface StoredDiskEntry extends Omit<DiskEntry, 'diskType' | 'usedSize' | 'freeSize'> {
  diskType: string;
  usedSize: bigint;
  freeSize: bigint;
  image: number;
  software: number;
}

/** A center, room or client by id: what a scheduled task runs on. */
export interface ScopeRef {
  type: 'center' | 'room' | 'client';
  id: number;
}

export interface RepositoryView {
  id: number;
  name: string;
  center: number;
  addresses: string[];
}

const inChunk = 500;

/** A committed change to what the client index holds, as instances tell each other. */
export interface InventoryChange {
  /** Anything above clients (a room's network, a deleted folder): read everything again. */
  tables?: true;
  /** These clients were added, changed or deleted: read their rows again. */
  clients?: number[];
  /** These clients' own fields, as a command set them. */
  patch?: { ids: number[]; fields: ClientPatch };
  /** These clients' disks and partitions were stored. */
  disks?: number[];
}

/**
 * The inventory as other plugins use it: look clients up, change their boot settings,
 * store what agents report about their disks. What happens to clients is told on the event
 * bus (`client.saved`, `client.removed`, `clients.removed`, hook `client.check`).
 */
@injectable()
export class Inventory {
  private readonly diskWriter: DiskSetupWriter;
  private readonly index: ClientIndex;
  private readonly sizes: PartitionSizes;
  /** Clients whose disks were stored this turn, for the other instances (one message per turn, not per report). */
  private disksToTell?: Set<number>;

  constructor(
    @inject(Database) private readonly db: Database,
    @inject(PluginEventBus) private readonly events: PluginEvents,
    @inject(PluginClusterView) private readonly cluster: Pick<PluginCluster, 'broadcast'>,
  ) {
    this.diskWriter = new DiskSetupWriter(db);
    this.index = new ClientIndex(db);
    this.sizes = new PartitionSizes((ids, filesystem) => this.readPartitionSizes(ids, filesystem));
  }

  /**
   * Call once a write to clients, rooms or what their views show has committed without
   * these services (the inventory's own routes, a bulk load): lookups read the tables
   * again, here and on the other instances.
   */
  tablesChanged(): void {
    this.apply({ tables: true });
  }

  /** Call once a write that added, changed or deleted these clients (and nothing else they show) has committed. */
  clientsChanged(clientIds: Iterable<number>): void {
    this.apply({ clients: [...clientIds] });
  }

  /** Apply a committed change to the client index; unless another instance made it, tell the others. */
  apply(change: InventoryChange, fromElsewhere = false): void {
    if (change.tables) {
      this.index.invalidate();
      this.sizes.clear();
    }
    if (change.clients) {
      this.index.changed(change.clients);
      this.sizes.changed(change.clients);
    }
    if (change.patch) this.index.patch(change.patch.ids, change.patch.fields);
    if (change.disks) this.sizes.changed(change.disks);
    if (!fromElsewhere) this.cluster.broadcast('inventory.changed', change);
  }

  /** A client's disks were stored here: forget its sizes now, and tell the other instances once this turn ends. */
  private disksStored(clientId: number): void {
    this.sizes.changed([clientId]);
    if (this.disksToTell) {
      this.disksToTell.add(clientId);
      return;
    }
    this.disksToTell = new Set([clientId]);
    setImmediate(() => {
      const disks = [...(this.disksToTell ?? [])];
      this.disksToTell = undefined;
      this.cluster.broadcast('inventory.changed', { disks });
    });
  }

  private patched(clientIds: number[], fields: ClientPatch): void {
    this.apply({ patch: { ids: clientIds, fields } });
  }

  /** Run the `client.check` hooks: the first refusal stops the request before anything is written. */
  checkClient(fields: ClientRequestFields): Promise<void> {
    return this.events.check('client.check', fields);
  }

  /** Tell of clients gone (deleted, or their old record when the IP or MAC changed), each then all at once. */
  async notifyRemoved(clients: ClientView[], log?: Logger): Promise<void> {
    for (const client of clients) await this.events.tell('client.removed', client, log);
    if (clients.length > 0) await this.events.tell('clients.removed', clients, log);
  }

  /** Tell of clients saved; resolves with what each listener's failure means for the caller. */
  async notifySaved(clients: ClientView[], log?: Logger): Promise<string[]> {
    const problems: string[] = [];
    for (const client of clients) {
      for (const failure of await this.events.tell('client.saved', client, log)) {
        problems.push(`could not ${failure.task ?? `handle ${failure.event}`} for ${client.ip}: ${failure.error.message}`);
      }
    }
    return problems;
  }

  async clientByIp(ip: string): Promise<ClientView | null> {
    return (await this.index.byIp(ip)) ?? null;
  }

  async clientById(id: number): Promise<ClientView | null> {
    return (await this.index.byId(id)) ?? null;
  }

  /** Every client, in no particular order (from the index: no query once it is loaded). */
  allClients(): Promise<Iterable<ClientView>> {
    return this.index.all();
  }

  async clientByMac(mac: string): Promise<ClientView | null> {
    return (await this.index.byMac(mac)) ?? null;
  }

  /** The known clients among `ips`, in the order asked; unknown addresses are left out. */
  clientsByIps(ips: string[]): Promise<ClientView[]> {
    return this.index.byIps(ips);
  }

  /** The stored MAC (12 lower-case hex digits) of every client. */
  async macs(): Promise<Set<string>> {
    return new Set([...(await this.index.all())].map((c) => c.mac));
  }

  /**
   * The clients at `ips`, each once, in the order asked; a request naming an address no
   * client has is refused (400 `unknown_id` naming `field` and the addresses).
   */
  async requireClients(ips: string[], field = 'clients'): Promise<ClientView[]> {
    const found = await this.clientsByIps(ips);
    requireAllKnown(ips, found, field);
    return found;
  }

  /** The client at `ip`, or a 400 naming `field`. */
  async requireClient(ip: string, field: string): Promise<ClientView> {
    const [client] = await this.requireClients([ip], field);
    return client!;
  }

  /** The clients of a center, of a room, or the one client (a scheduled task's scope), read in `em`. */
  async clientsInScope(scope: ScopeRef, em?: EntityManager): Promise<ClientView[]> {
    const column = { center: 'r.center_id', room: 'c.room_id', client: 'c.id' }[scope.type];
    return clientsWhere(this.db.unit(em), `${column} = ?`, [scope.id]);
  }

  /**
   * Every client, by id, with its center's name (what a saved group's filter reads): from
   * memory, or read in `em` when given (inside the unit of work of a schedule that fires it).
   */
  async clientsWithCenters(em?: EntityManager): Promise<{ clients: ClientView[]; centers: Map<number, string> }> {
    const sql = 'select id, name from centers';
    const clients = em ? await clientsWhere(em, '1 = 1', []) : [...(await this.index.all())].sort((a, b) => a.id - b.id);
    const centers = em ? await execute<{ id: number; name: string }>(em, sql, []) : await this.db.query<{ id: number; name: string }>(sql);
    return { clients, centers: new Map(centers.map((c) => [Number(c.id), String(c.name)])) };
  }

  /**
   * The part of the fleet made of these centers and rooms, for a token limited to it: a 400
   * naming `centers` or `rooms` when one of them does not exist.
   */
  async scopeOf(centers: readonly number[], rooms: readonly number[]): Promise<FleetScope> {
    for (const [field, type, ids] of [['centers', 'center', centers] as const, ['rooms', 'room', rooms] as const]) {
      for (const id of ids) {
        if (!(await this.scopeExists({ type, id }))) throw badRequest(ErrorCode.unknownId, `no ${type} with id ${id}`, field);
      }
    }
    return this.fleetScope(centers, rooms);
  }

  /** The same without checking the ids (a stored token's scope: a deleted room just holds nothing). */
  fleetScope(centers: readonly number[], rooms: readonly number[]): FleetScope {
    return new FleetScope(
      {
        clientByIp: (ip) => this.clientByIp(ip),
        allClients: () => this.index.all(),
        centerOfRoom: async (roomId) => {
          const [room] = await this.db.query<{ center_id: number }>('select center_id from rooms where id = ?', [roomId]);
          return room ? Number(room.center_id) : undefined;
        },
      },
      new Set(centers),
      new Set(rooms),
    );
  }

  /** Whether a center, room or client has this id (read in `em`, so inside its transaction). */
  /**
   * A center or a client as another plugin's row refers to it (a foreign key with the
   * inventory's own cascade), within that plugin's unit of work; nothing is read.
   */
  centerRef(em: EntityManager, id: number): Center {
    return em.getReference(CenterEntity, id);
  }

  clientRef(em: EntityManager, id: number): Client {
    return em.getReference(ClientEntity, id);
  }

  async scopeExists(scope: ScopeRef, em?: EntityManager): Promise<boolean> {
    const table = { center: 'centers', room: 'rooms', client: 'clients' }[scope.type];
    return (await execute(this.db.unit(em), `select id from ${table} where id = ?`, [scope.id])).length > 0;
  }

  /**
   * The name of a center, room or folder (a folder by its public id, as GET /scopes shows it),
   * for what people read ("the power calendar of Lab 1"); null when there is none.
   */
  async scopeName(type: 'center' | 'room' | 'folder', id: number): Promise<string | null> {
    let table = type === 'center' ? 'centers' : 'rooms';
    let row = id;
    if (type === 'folder') {
      if (!Number.isSafeInteger(id) || id < 1) return null;
      const computer = id > MAX_FOLDER_ROW_ID;
      table = computer ? 'computer_folders' : 'room_folders';
      row = computer ? id - COMPUTER_FOLDER_MARKER : id;
    }
    const [found] = await this.db.query<{ name: string }>(`select name from ${table} where id = ?`, [row]);
    return found ? String(found.name) : null;
  }

  /**
   * Whether a computer folder has this public id (65536 + its table id, as GET /scopes shows
   * it): a 400 naming `field` when the id is not a computer folder's at all.
   */
  async computerFolderExists(publicId: number, field: string): Promise<boolean> {
    const folder = parseFolderId(publicId, field);
    if (folder.kind !== 'computer')
      throw badRequest(ErrorCode.invalidField, `'${field}' must be a computer folder's id, not a room folder's`, field);
    return (await this.db.query('select id from computer_folders where id = ?', [folder.id])).length > 0;
  }

  /** Every client with the names of its room and center, by address (monitoring labels). */
  async fleetLabels(): Promise<{ ip: string; name: string; mac: string; room: string; center: string }[]> {
    return this.db.query(
      `select c.ip, c.name, c.mac, r.name as room, ce.name as center
       from clients c join rooms r on r.id = c.room_id join centers ce on ce.id = r.center_id order by c.id`,
    );
  }

  /** A room's settings as clients' views carry them, or null when no room has that id. */
  async room(roomId: number): Promise<ClientView['room'] | null> {
    return (await this.readRooms('where id = ?', [roomId]))[0] ?? null;
  }

  /** Every room's settings as clients' views carry them (the networks of rooms with no client yet), by id. */
  rooms(): Promise<ClientView['room'][]> {
    return this.readRooms('order by id', []);
  }

  private async readRooms(rest: string, params: unknown[]): Promise<ClientView['room'][]> {
    const rows = await this.db.query<Record<string, unknown>>(
      `select id, name, center_id, netmask, gateway, ntp, dns, location from rooms ${rest}`,
      params,
    );
    const text = (value: unknown) => String(value ?? '');
    return rows.map((row) => ({
      id: Number(row.id),
      name: text(row.name),
      centerId: Number(row.center_id),
      netmask: text(row.netmask),
      gateway: text(row.gateway),
      ntp: text(row.ntp),
      dns: text(row.dns),
      location: text(row.location),
    }));
  }

  /** The clients of a room, or undefined when no room has that id. */
  async clientsInRoom(roomId: number): Promise<ClientView[] | undefined> {
    const [room] = await this.db.query<{ id: number }>('select id from rooms where id = ?', [roomId]);
    return room ? [...(await this.index.all())].filter((c) => c.room.id === roomId).sort((a, b) => a.id - b.id) : undefined;
  }

  async setBootMode(clientIds: number[], mode: string): Promise<void> {
    await this.updateColumn('boot', clientIds, mode);
    this.patched(clientIds, { boot: mode });
  }

  async setLivedir(clientIds: number[], livedir: string): Promise<void> {
    await this.updateColumn('livedir', clientIds, livedir);
    this.patched(clientIds, { livedir });
  }

  async repository(id: number): Promise<RepositoryView | null> {
    const rows = await this.db.query<{ id: number; name: string; center: number; ip: string | null }>(
      'select r.id, r.name, r.center, a.ip from repositories r left join repository_addresses a on a.repository_id = r.id where r.id = ? order by a.id',
      [id],
    );
    if (rows.length === 0) return null;
    const first = rows[0]!;
    return { id: Number(first.id), name: first.name, center: Number(first.center), addresses: rows.flatMap((r) => (r.ip ? [r.ip] : [])) };
  }

  /** Every repository, by id. */
  async repositories(): Promise<RepositoryView[]> {
    const rows = await this.db.query<{ id: number }>('select id from repositories order by id');
    const views = await Promise.all(rows.map((r) => this.repository(Number(r.id))));
    return views.filter((v): v is RepositoryView => v !== null);
  }

  async repositoryByAddress(ip: string): Promise<RepositoryView | null> {
    const rows = await this.db.query<{ repository_id: number }>('select repository_id from repository_addresses where ip = ?', [ip]);
    return rows[0] ? this.repository(Number(rows[0].repository_id)) : null;
  }

  /**
   * Replace a client's stored disks and partitions with an agent's report, in one
   * transaction. A partition whose size, filesystem or OS changed loses its image link.
   */
  async storeDiskSetup(clientId: number, entries: DiskEntry[], serialNumber?: string): Promise<void> {
    // A serial number is set only where none is stored: an agent that reports the one its
    // client has (every connect after the first) costs no statement.
    const unset = !!serialNumber && (await this.index.byId(clientId))?.serialNumber === '';
    // Before and after: a size read while the write runs is not kept.
    this.sizes.changed([clientId]);
    try {
      await this.diskWriter.store(clientId, entries, unset ? serialNumber : undefined);
    } finally {
      this.disksStored(clientId);
    }
    if (unset) this.patched([clientId], { serialNumber });
  }

  async diskSetup(clientId: number): Promise<StoredDiskEntry[]> {
    return (await this.diskSetups([clientId])).get(clientId) ?? [];
  }

  /**
   * The size of each client's first partition with this file system (any case), by client
   * id; clients without one are left out. From memory once read (see PartitionSizes).
   */
  partitionSizes(clientIds: number[], filesystem: string): Promise<Map<number, bigint>> {
    return this.sizes.of(clientIds, filesystem);
  }

  private async readPartitionSizes(clientIds: number[], filesystem: string): Promise<Map<number, bigint>> {
    const out = new Map<number, bigint>();
    for (let i = 0; i < clientIds.length; i += inChunk) {
      const chunk = clientIds.slice(i, i + inChunk);
      const rows = await this.db.query(
        `select client_id, ${this.db.bigintAsText('size')} as size from partitions
          where client_id in (${chunk.map(() => '?').join(',')}) and part_number > 0 and upper(filesystem) = ?
          order by client_id, disk, part_number`,
        [...chunk, filesystem.toUpperCase()],
      );
      for (const r of rows) if (!out.has(Number(r.client_id))) out.set(Number(r.client_id), BigInt(r.size as string));
    }
    return out;
  }

  /** The stored disks and partitions of many clients in one query per 500 clients. */
  async diskSetups(clientIds: number[]): Promise<Map<number, StoredDiskEntry[]>> {
    const out = new Map<number, StoredDiskEntry[]>(clientIds.map((id) => [id, []]));
    const text = (column: string) => this.db.bigintAsText(column);
    for (let i = 0; i < clientIds.length; i += inChunk) {
      const chunk = clientIds.slice(i, i + inChunk);
      const rows = await this.db.query(
        `select client_id, disk, part_number as part, disk_type, code, ${text('size')} as size, ${text('used_size')} as used_size,
          ${text('free_size')} as free_size, filesystem, os, image, software from partitions
          where client_id in (${chunk.map(() => '?').join(',')}) order by client_id, disk, part_number`,
        chunk,
      );
      for (const r of rows) {
        out.get(Number(r.client_id))?.push({
          disk: Number(r.disk),
          partition: Number(r.part),
          diskType: String(r.disk_type),
          code: Number(r.code),
          size: BigInt(r.size as string),
          usedSize: BigInt(r.used_size as string),
          freeSize: BigInt(r.free_size as string),
          filesystem: String(r.filesystem),
          os: String(r.os),
          image: Number(r.image),
          software: Number(r.software),
        });
      }
    }
    return out;
  }

  /**
   * Record the image a client's partition now holds (an agent created or restored it there),
   * and with a restore the image's software profile, as the reference does.
   */
  async setPartitionImage(clientId: number, disk: number, partition: number, imageId: number, softwareId?: number): Promise<void> {
    const where = 'where client_id = ? and disk = ? and part_number = ?';
    if (softwareId === undefined) await this.db.query(`update partitions set image = ? ${where}`, [imageId, clientId, disk, partition]);
    else await this.db.query(`update partitions set image = ?, software = ? ${where}`, [imageId, softwareId, clientId, disk, partition]);
  }

  /**
   * Record a partition's software profile (an agent reported its software). As the
   * reference, a partition whose profile changes no longer holds the image it held.
   */
  async setPartitionSoftware(em: EntityManager, clientId: number, disk: number, partition: number, profileId: number): Promise<void> {
    // image first: MariaDB evaluates the assignments in order, each seeing the ones before.
    await execute(
      em,
      'update partitions set image = case when software = ? then image else 0 end, software = ? where client_id = ? and disk = ? and part_number = ?',
      [profileId, profileId, clientId, disk, partition],
    );
  }

  /** The software profile of a client's partition; 0 when none was reported or there is no such partition. */
  async partitionSoftware(clientId: number, disk: number, partition: number): Promise<number> {
    const rows = await this.db.query<{ software: number }>(
      'select software from partitions where client_id = ? and disk = ? and part_number = ?',
      [clientId, disk, partition],
    );
    return Number(rows[0]?.software ?? 0);
  }

  /** Record a client's hardware profile (its `hardware_id`): its agent reported its hardware. */
  async setHardwareProfile(em: EntityManager, clientId: number, profileId: number): Promise<void> {
    await execute(em, 'update clients set hardware_id = ? where id = ?', [profileId, clientId]);
    this.db.afterCommit(em, () => this.patched([clientId], { hardwareId: profileId }));
  }

  /** The addresses of the clients one of whose partitions holds the image (sorted as text). */
  async clientsWithImage(imageId: number): Promise<string[]> {
    const rows = await this.db.query<{ ip: string }>(
      'select distinct c.ip from clients c join partitions p on p.client_id = c.id where p.image = ? order by c.ip',
      [imageId],
    );
    return rows.map((r) => r.ip);
  }

  /** Forget a deleted image on every partition that held it: consoles look every non-zero image id up. */
  async forgetImage(imageId: number): Promise<void> {
    await this.db.query('update partitions set image = 0 where image = ?', [imageId]);
  }

  /** One transaction for every chunk: a change of many clients' mode lands whole or not at all. */
  private async updateColumn(column: 'boot' | 'livedir', clientIds: number[], value: string): Promise<void> {
    if (clientIds.length === 0) return;
    await this.db.transactional(async (em) => {
      for (let i = 0; i < clientIds.length; i += inChunk) {
        const chunk = clientIds.slice(i, i + inChunk);
        await execute(em, `update clients set ${column} = ? where id in (${chunk.map(() => '?').join(',')})`, [value, ...chunk]);
      }
    });
  }
}
