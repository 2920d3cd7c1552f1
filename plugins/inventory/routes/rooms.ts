import type { EntityManager } from '@mikro-orm/core';
import { ErrorCode, badRequest, type PluginContext, toInt } from 'ogserve';
import { CenterEntity } from '../entities/center';
import { RoomFolderEntity, type RoomFolder } from '../entities/folder';
import { RoomEntity, type Room } from '../entities/room';
import { parseFolderId } from '../folder-ids';
import { deleteWithClients } from '../cascade';
import { clientsWhere } from '../client-view';
import { requireRow } from '../lookups';
import { Created, Done, IdBody, RoomAdd, RoomInfo, RoomUpdate } from '../schemas';
import type { Inventory } from '../service';

/** The room folder a room goes in: `folder_id` (or the older `group`), 0 for none. */
async function roomFolderFor(
  em: EntityManager,
  body: { folder_id?: number | string; group?: number | string },
  centerId: number,
): Promise<RoomFolder | null | undefined> {
  const raw = body.folder_id ?? body.group;
  if (raw === undefined) return undefined;
  const publicId = toInt(raw);
  if (publicId === 0) return null;
  const field = body.folder_id !== undefined ? 'folder_id' : 'group';
  const ref = parseFolderId(publicId, field);
  if (ref.kind !== 'room')
    throw badRequest(ErrorCode.invalidField, `folder ${publicId} is a computer folder; rooms go in room folders`, field);
  const folder = await requireRow(em, RoomFolderEntity, ref.id, field);
  if (folder.center.id !== centerId) throw badRequest(ErrorCode.invalidField, `room folder ${publicId} belongs to another center`, field);
  return folder;
}

function roomInfo(room: Room) {
  return {
    id: room.id,
    name: room.name,
    center: room.center.id,
    netmask: room.netmask,
    gateway: room.gateway,
    location: room.location,
    ntp: room.ntp,
    dns: room.dns,
    remote: room.remote,
    folder_id: room.folder?.id ?? 0,
  };
}

export function roomRoutes(ctx: PluginContext, inventory: Inventory): void {
  const { router, db } = ctx;

  router.post('/room/add', { permission: 'admin', body: RoomAdd, response: Created }, async ({ body, em }) => {
    const centerId = toInt(body.center);
    await requireRow(em, CenterEntity, centerId, 'center');
    if (await em.count(RoomEntity, { center: centerId, name: body.name })) {
      throw badRequest(ErrorCode.duplicate, `center ${centerId} already has a room named '${body.name}'`, 'name');
    }
    const folder = await roomFolderFor(em, body, centerId);
    const room = em.create(RoomEntity, {
      center: centerId,
      name: body.name,
      netmask: body.netmask,
      gateway: body.gateway ?? '',
      location: body.location ?? '',
      ntp: body.ntp ?? '',
      dns: body.dns ?? '',
      remote: body.remote ?? false,
      folder: folder ?? null,
    });
    await em.flush();
    return { id: room.id };
  });

  router.post('/room/update', { permission: 'admin', body: RoomUpdate, response: Done }, async ({ body, em }) => {
    const id = toInt(body.id);
    const room = await requireRow(em, RoomEntity, id, 'id');
    if (body.name !== undefined && (await em.count(RoomEntity, { center: room.center.id, name: body.name, id: { $ne: id } }))) {
      throw badRequest(ErrorCode.duplicate, `another room of center ${room.center.id} is named '${body.name}'`, 'name');
    }
    const folder = await roomFolderFor(em, body, room.center.id);
    if (folder !== undefined) room.folder = folder;
    for (const key of ['name', 'netmask', 'gateway', 'location', 'ntp', 'dns', 'remote'] as const) {
      if (body[key] !== undefined) (room as unknown as Record<string, unknown>)[key] = body[key];
    }
    await em.flush();
    return {};
  });

  router.get('/room/info', { permission: 'read', body: IdBody, response: RoomInfo }, async ({ body, em }) =>
    roomInfo(await requireRow(em, RoomEntity, toInt(body.id), 'id')),
  );

  // Unknown ids answer 200, as the reference does; the room's clients go with it.
  router.post('/room/delete', { permission: 'admin', body: IdBody, response: Done }, async ({ body, log }) => {
    const id = toInt(body.id);
    await deleteWithClients(
      db,
      inventory,
      log,
      (em) => clientsWhere(em, 'c.room_id = ?', [id]),
      (em) => em.nativeDelete(RoomEntity, { id }),
    );
    return {};
  });
}
