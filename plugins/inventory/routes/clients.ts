import { ConstraintViolationException, type EntityManager, type EntitySchema } from '@mikro-orm/core';
import type { Static } from '@sinclair/typebox';
import { ErrorCode, HttpError, badRequest, PreparedJson, stringifyAscii, normalizeMac, type PluginContext, toInt } from 'ogserve';
import { type ClientRules, computerFolder, type InventoryConfig, optionalRef } from '../client-rules';
import { clientsWhere, type ClientView } from '../client-view';
import { ClientEntity } from '../entities/client';
import { RepositoryEntity } from '../entities/repository';
import { RoomEntity } from '../entities/room';
import { ServerEntity } from '../entities/server';
import { filesystemId } from '../filesystems';
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

export function clientRoutes(ctx: PluginContext<InventoryConfig>, inventory: Inventory, rules: ClientRules): void {
  const { router, db, config } = ctx;
  // Uniqueness and references are left to the table's constraints (one statement per add);
  // a refused row is explained by the checks in order, so the answer names the same field.
  router.post('/client/add', { permission: 'admin', clients: 'ip', body: ClientAdd, response: ClientSaved }, async ({ body, log, em }) => {
    await inventory.checkClient(body);
    const mac = normalizeMac(body.mac);
    let id: number;
    try {
      id = await rules.insertClient(em, body, mac);
    } catch (error) {
      if (!(error instanceof ConstraintViolationException) && !(error instanceof HttpError)) throw error;
      await rules.explainRefusal(em, body, mac);
      // Nothing refuses it now (the row in the way went meanwhile): one more try.
      id = await rules.insertClient(em, body, mac);
    }
    inventory.clientsChanged([id]);
    const warnings = await inventory.notifySaved([(await inventory.clientById(id))!], log);
    return warnings.length > 0 ? { id, warnings } : { id };
  });

  router.post(
    '/client/update',
    { permission: 'admin', clients: 'ip', body: ClientUpdate, response: ClientUpdated },
    async ({ body, log, em: unit }) => {
      const id = toInt(body.id);
      const before = await inventory.clientById(id);
      if (!before) throw badRequest(ErrorCode.unknownId, `no client with id ${id}`, 'id');
      await inventory.checkClient(body);
      const mac = body.mac === undefined ? undefined : normalizeMac(body.mac);
      await db.transactional(async (em) => {
        const client = await requireRow(em, ClientEntity, id, 'id');
        await rules.checkUnique(em, { ip: body.ip, mac }, id);
        const roomId = body.room === undefined ? client.room.id : toInt(body.room);
        if (roomId !== client.room.id) {
          client.room = await requireRow(em, RoomEntity, roomId, 'room');
          if (body.folder_id === undefined) client.folder = null; // the old folder belongs to the old room
        }
        if (body.ip !== undefined) client.ip = body.ip;
        if (mac !== undefined) client.mac = mac;
        await rules.applyFields(em, client, body, roomId);
        await em.flush();
      }, unit);
      inventory.clientsChanged([id]);
      const after = (await inventory.clientById(id))!;
      if (after.ip !== before.ip || after.mac !== before.mac) await inventory.notifyRemoved([before], log);
      const warnings = await inventory.notifySaved([after], log);
      return warnings.length > 0 ? { warnings } : {};
    },
  );

  // Unknown addresses are ignored, as the reference does; boot files go through the removed hook.
  router.post(
    '/client/delete',
    { permission: 'admin', clients: 'clients', body: ClientsBody, response: Done },
    async ({ body, log, em: unit }) => {
      const removed = await db.transactional(async (em) => {
        const clients = await clientsIn(em, body.clients);
        if (clients.length) await em.nativeDelete(ClientEntity, { id: { $in: clients.map((c) => c.id) } });
        return clients;
      }, unit);
      inventory.clientsChanged(removed.map((c) => c.id));
      await inventory.notifyRemoved(removed, log);
      return {};
    },
  );

  router.post('/client/move', { permission: 'admin', clients: 'clients', body: ClientMove, response: Done }, async ({ body, em: unit }) => {
    const moved = await db.transactional(async (em) => {
      const roomId = toInt(body.room);
      await requireRow(em, RoomEntity, roomId, 'room');
      const folderId = body.folder_id === undefined ? null : await computerFolder(em, body.folder_id, roomId);
      const clients = await clientsIn(em, body.clients);
      requireAllKnown(body.clients, clients);
      if (clients.length)
        await em.nativeUpdate(ClientEntity, { id: { $in: clients.map((c) => c.id) } }, { room: roomId, folder: folderId });
      return clients;
    }, unit);
    inventory.clientsChanged(moved.map((c) => c.id));
    return {};
  });

  const assign = <T extends { id: number }>(path: string, entity: EntitySchema<T>, column: 'repository' | 'server') =>
    router.post(path, { permission: 'admin', clients: 'clients', body: ClientAssign, response: Done }, async ({ body, em: unit }) => {
      const assigned = await db.transactional(async (em) => {
        const target = await optionalRef(em, entity, body.id, 'id');
        const clients = await clientsIn(em, body.clients);
        requireAllKnown(body.clients, clients);
        if (clients.length)
          await em.nativeUpdate(ClientEntity, { id: { $in: clients.map((c) => c.id) } }, { [column]: target?.id ?? null });
        return clients;
      }, unit);
      inventory.clientsChanged(assigned.map((c) => c.id));
      return {};
    });
  assign('/client/repo', RepositoryEntity, 'repository');
  assign('/client/server', ServerEntity, 'server');

  // A view is replaced, never changed, when its client or room is written: its answer is kept with it.
  const infoAnswers = new WeakMap<ClientView, PreparedJson>();
  router.get(
    '/client/info',
    { permission: 'read', scoped: { clients: 'client' }, body: ClientQuery, response: ClientInfo },
    async ({ body }) => {
      const client = await oneClient(body.client);
      let answer = infoAnswers.get(client);
      if (!answer) infoAnswers.set(client, (answer = new PreparedJson(stringifyAscii(clientInfo(client)))));
      return answer;
    },
  );

  router.get(
    '/client/setup',
    { permission: 'read', scoped: { clients: 'client' }, body: ClientQuery, response: ClientSetup },
    async ({ body }) => {
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
    },
  );

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
