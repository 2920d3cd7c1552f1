import { ConstraintViolationException, type EntityManager, type EntitySchema } from '@mikro-orm/core';
import type { Static } from '@sinclair/typebox';
import { ErrorCode, HttpError, badRequest, PreparedJson, stringifyAscii, normalizeMac, type PluginContext, toInt } from 'ogserve';
import { clientsWhere, type ClientView } from '../client-view';
import { ClientEntity, type Client } from '../entities/client';
import { type ComputerFolder, ComputerFolderEntity } from '../entities/folder';
import { RepositoryEntity } from '../entities/repository';
import { RoomEntity } from '../entities/room';
import { ServerEntity } from '../entities/server';
import { filesystemId } from '../filesystems';
import { parseFolderId } from '../folder-ids';
import { requireAllKnown, requireRow } from '../lookups';
import {
  ClientAdd,
  ClientAssign,
  ClientInfo,
  ClientMove,
  ClientQuery,
  ClientSaved,
  ClientsBody,
  ClientSetup,
  ClientUpdate,
  ClientUpdated,
  Done,
} from '../schemas';
import type { Inventory } from '../service';

export interface InventoryConfig {
  default_boot: string;
  default_livedir: string;
  setup_size_unit: 'bytes' | 'KiB';
}

type ClientFields = Partial<Static<typeof ClientUpdate>>;

/** A computer folder of the given room, or null for `folder_id` 0. */
async function computerFolder(em: EntityManager, publicId: number | string, roomId: number): Promise<ComputerFolder | null> {
  const id = toInt(publicId);
  if (id === 0) return null;
  const ref = parseFolderId(id, 'folder_id');
  if (ref.kind !== 'computer')
    throw badRequest(ErrorCode.invalidField, `folder ${id} is a room folder; clients go in computer folders`, 'folder_id');
  const folder = await requireRow(em, ComputerFolderEntity, ref.id, 'folder_id');
  if (folder.room.id !== roomId) throw badRequest(ErrorCode.invalidField, `folder ${id} belongs to another room`, 'folder_id');
  return folder;
}

/** The row `value` names, or null for 0 (none). */
async function optionalRef<T extends { id: number }>(
  em: EntityManager,
  entity: EntitySchema<T>,
  value: number | string,
  field: string,
): Promise<T | null> {
  const id = toInt(value);
  return id === 0 ? null : requireRow(em, entity, id, field);
}

export function clientRoutes(ctx: PluginContext<InventoryConfig>, inventory: Inventory): void {
  const { router, db, log, config } = ctx;

  /** Refuse an IP or MAC another client holds; the MAC owner is logged, as the reference does. */
  async function checkUnique(em: EntityManager, fields: { ip?: string; mac?: string }, selfId?: number): Promise<void> {
    if (fields.ip !== undefined) {
      const owner = await em.findOne(ClientEntity, { ip: fields.ip, id: { $ne: selfId ?? 0 } });
      if (owner) throw badRequest(ErrorCode.duplicate, `client '${owner.name}' (id ${owner.id}) already has ip ${fields.ip}`, 'ip');
    }
    if (fields.mac !== undefined) {
      const owner = await em.findOne(ClientEntity, { mac: fields.mac, id: { $ne: selfId ?? 0 } });
      if (owner) {
        log.warn(`MAC ${fields.mac} already belongs to client name=${owner.name} ip=${owner.ip} mac=${owner.mac} room=${owner.room.id}`);
        throw badRequest(ErrorCode.duplicate, `client '${owner.name}' (ip ${owner.ip}) already has mac ${fields.mac}`, 'mac');
      }
    }
  }

  /** The optional fields a request set that are stored as sent, by entity property. */
  function plainFields(body: ClientFields): Partial<Client> {
    const plain = {
      name: 'name',
      serial_number: 'serialNumber',
      netmask: 'netmask',
      boot: 'boot',
      netiface: 'netiface',
      netdriver: 'netdriver',
      livedir: 'livedir',
      remote: 'remote',
      maintenance: 'maintenance',
    } as const;
    const fields: Record<string, unknown> = {};
    for (const [key, property] of Object.entries(plain)) {
      const value = body[key as keyof typeof plain];
      if (value !== undefined) fields[property] = value;
    }
    if (body.hardware_id !== undefined) fields.hardwareId = toInt(body.hardware_id);
    return fields as Partial<Client>;
  }

  /** The references a request set, resolved: a 400 naming the field for one that does not exist. */
  async function references(em: EntityManager, body: ClientFields, roomId: number): Promise<Partial<Client>> {
    const refs: Partial<Client> = {};
    if (body.repo_id !== undefined) refs.repository = await optionalRef(em, RepositoryEntity, body.repo_id, 'repo_id');
    if (body.server_id !== undefined) refs.server = await optionalRef(em, ServerEntity, body.server_id, 'server_id');
    if (body.folder_id !== undefined) refs.folder = await computerFolder(em, body.folder_id, roomId);
    return refs;
  }

  /** Copy the optional fields a request set onto the entity, resolving references. */
  async function applyFields(em: EntityManager, client: Client, body: ClientFields, roomId: number): Promise<void> {
    Object.assign(client, plainFields(body), await references(em, body, roomId));
  }

  /**
   * The rules of an added client, checked in the order their refusals are reported: the
   * room, the IP, the MAC, then the references. Run only once the database refused a row
   * (constraints catch all of these but the folder's room), to say which rule it broke.
   */
  async function explainRefusal(em: EntityManager, body: Static<typeof ClientAdd>, mac: string): Promise<void> {
    const roomId = toInt(body.room);
    await requireRow(em, RoomEntity, roomId, 'room');
    await checkUnique(em, { ip: body.ip, mac });
    await references(em, body, roomId);
  }

  /** One statement: the room, repository and server by foreign key, the IP and MAC by unique key. */
  async function insertClient(em: EntityManager, body: Static<typeof ClientAdd>, mac: string): Promise<number> {
    const roomId = toInt(body.room);
    const folder = body.folder_id === undefined ? null : await computerFolder(em, body.folder_id, roomId);
    const ref = (value: number | string | undefined) => (value === undefined || toInt(value) === 0 ? null : toInt(value));
    const row = {
      boot: config.default_boot,
      livedir: config.default_livedir,
      ...plainFields(body),
      ip: body.ip,
      mac,
      room: roomId,
      folder: folder?.id ?? null,
      repository: ref(body.repo_id),
      server: ref(body.server_id),
    };
    return Number(await em.insert(ClientEntity, row));
  }

  // Uniqueness and references are left to the table's constraints (one statement per add);
  // a refused row is explained by the checks in order, so the answer names the same field.
  router.post('/client/add', { permission: 'admin', body: ClientAdd, response: ClientSaved }, async ({ body, log, em }) => {
    await inventory.checkClient(body);
    const mac = normalizeMac(body.mac);
    let id: number;
    try {
      id = await insertClient(em, body, mac);
    } catch (error) {
      if (!(error instanceof ConstraintViolationException) && !(error instanceof HttpError)) throw error;
      await explainRefusal(em, body, mac);
      // Nothing refuses it now (the row in the way went meanwhile): one more try.
      id = await insertClient(em, body, mac);
    }
    inventory.clientsChanged([id]);
    const warnings = await inventory.notifySaved([(await inventory.clientById(id))!], log);
    return warnings.length > 0 ? { id, warnings } : { id };
  });

  router.post('/client/update', { permission: 'admin', body: ClientUpdate, response: ClientUpdated }, async ({ body, log }) => {
    const id = toInt(body.id);
    const before = await inventory.clientById(id);
    if (!before) throw badRequest(ErrorCode.unknownId, `no client with id ${id}`, 'id');
    await inventory.checkClient(body);
    const mac = body.mac === undefined ? undefined : normalizeMac(body.mac);
    await db.transactional(async (em) => {
      const client = await requireRow(em, ClientEntity, id, 'id');
      await checkUnique(em, { ip: body.ip, mac }, id);
      const roomId = body.room === undefined ? client.room.id : toInt(body.room);
      if (roomId !== client.room.id) {
        client.room = await requireRow(em, RoomEntity, roomId, 'room');
        if (body.folder_id === undefined) client.folder = null; // the old folder belongs to the old room
      }
      if (body.ip !== undefined) client.ip = body.ip;
      if (mac !== undefined) client.mac = mac;
      await applyFields(em, client, body, roomId);
      await em.flush();
    });
    inventory.clientsChanged([id]);
    const after = (await inventory.clientById(id))!;
    if (after.ip !== before.ip || after.mac !== before.mac) await inventory.notifyRemoved([before], log);
    const warnings = await inventory.notifySaved([after], log);
    return warnings.length > 0 ? { warnings } : {};
  });

  // Unknown addresses are ignored, as the reference does; boot files go through the removed hook.
  router.post('/client/delete', { permission: 'admin', body: ClientsBody, response: Done }, async ({ body, log }) => {
    const removed = await db.transactional(async (em) => {
      const clients = await clientsIn(em, body.clients);
      if (clients.length) await em.nativeDelete(ClientEntity, { id: { $in: clients.map((c) => c.id) } });
      return clients;
    });
    inventory.clientsChanged(removed.map((c) => c.id));
    await inventory.notifyRemoved(removed, log);
    return {};
  });

  router.post('/client/move', { permission: 'admin', body: ClientMove, response: Done }, async ({ body }) => {
    const moved = await db.transactional(async (em) => {
      const roomId = toInt(body.room);
      await requireRow(em, RoomEntity, roomId, 'room');
      const folderId = body.folder_id === undefined ? null : await computerFolder(em, body.folder_id, roomId);
      const clients = await clientsIn(em, body.clients);
      requireAllKnown(body.clients, clients);
      if (clients.length)
        await em.nativeUpdate(ClientEntity, { id: { $in: clients.map((c) => c.id) } }, { room: roomId, folder: folderId });
      return clients;
    });
    inventory.clientsChanged(moved.map((c) => c.id));
    return {};
  });

  const assign = <T extends { id: number }>(path: string, entity: EntitySchema<T>, column: 'repository' | 'server') =>
    router.post(path, { permission: 'admin', body: ClientAssign, response: Done }, async ({ body }) => {
      const assigned = await db.transactional(async (em) => {
        const target = await optionalRef(em, entity, body.id, 'id');
        const clients = await clientsIn(em, body.clients);
        requireAllKnown(body.clients, clients);
        if (clients.length)
          await em.nativeUpdate(ClientEntity, { id: { $in: clients.map((c) => c.id) } }, { [column]: target?.id ?? null });
        return clients;
      });
      inventory.clientsChanged(assigned.map((c) => c.id));
      return {};
    });
  assign('/client/repo', RepositoryEntity, 'repository');
  assign('/client/server', ServerEntity, 'server');

  // A view is replaced, never changed, when its client or room is written: its answer is kept with it.
  const infoAnswers = new WeakMap<ClientView, PreparedJson>();
  router.get('/client/info', { permission: 'read', scoped: 'clients', body: ClientQuery, response: ClientInfo }, async ({ body }) => {
    const client = await oneClient(body.client);
    let answer = infoAnswers.get(client);
    if (!answer) infoAnswers.set(client, (answer = new PreparedJson(stringifyAscii(clientInfo(client)))));
    return answer;
  });

  router.get('/client/setup', { permission: 'read', scoped: 'clients', body: ClientQuery, response: ClientSetup }, async ({ body }) => {
    const client = await oneClient(body.client);
    const entries = await inventory.diskSetup(client.id);
    // Agents report KiB and sizes are stored in bytes, so the KiB figures are exact.
    const unit = config.setup_size_unit === 'KiB' ? 1024n : 1n;
    return {
      partitions: entries.map((p) => ({
        disk: p.disk,
        partition: p.partition,
        disk_type: p.diskType,
        code: p.code,
        size: p.size / unit,
        used_size: p.usedSize / unit,
        free_size: p.freeSize / unit,
        filesystem: filesystemId(p.filesystem),
        filesystem_name: p.filesystem,
        os: p.os,
        image: p.image,
        software: p.software,
      })),
    };
  });

  async function oneClient(ips: string[]): Promise<ClientView> {
    if (ips.length !== 1) throw badRequest(ErrorCode.invalidField, "'client' must hold exactly one address", 'client');
    return inventory.requireClient(ips[0]!, 'client');
  }

  function clientsIn(em: EntityManager, ips: string[]): Promise<ClientView[]> {
    const unique = [...new Set(ips)];
    if (unique.length === 0) return Promise.resolve([]);
    return clientsWhere(em, `c.ip in (${unique.map(() => '?').join(',')})`, unique);
  }
}

/** GET /client/info's answer for one client. */
function clientInfo(client: ClientView): Static<typeof ClientInfo> {
  return {
    id: client.id,
    name: client.name,
    serial_number: client.serialNumber,
    ip: client.ip,
    mac: client.mac,
    room: client.room.id,
    center: client.room.centerId,
    folder_id: client.folderId,
    hardware_id: client.hardwareId,
    repo_id: client.repositoryId,
    server_id: client.serverId,
    netmask: client.netmask,
    netiface: client.netiface,
    netdriver: client.netdriver,
    livedir: client.livedir,
    boot: client.boot,
    remote: client.remote,
    maintenance: client.maintenance,
  };
}
