import type { EntityManager } from '@mikro-orm/core';
import { execute, ErrorCode, badRequest, type PluginContext, toInt } from 'ogserve';
import { clientsWhere, type ClientView } from '../client-view';
import { CenterEntity } from '../entities/center';
import { ComputerFolderEntity, RoomFolderEntity } from '../entities/folder';
import { RoomEntity } from '../entities/room';
import { MAX_FOLDER_ROW_ID, computerFolderPublicId, parseFolderId, type FolderRef } from '../folder-ids';
import { deleteWithClients } from '../cascade';
import { requireRow } from '../lookups';
import { Created, Done, FolderAdd, FolderUpdate, IdBody } from '../schemas';
import type { Inventory } from '../service';

const roomFolderTree = `with recursive tree(id) as (
  select id from room_folders where id = ?
  union all select f.id from room_folders f join tree t on f.parent_id = t.id)`;
const computerFolderTree = `with recursive tree(id) as (
  select id from computer_folders where id = ?
  union all select f.id from computer_folders f join tree t on f.parent_id = t.id)`;

/**
 * Folders: `{name, center}` makes a room folder, `{name, room}` a computer folder, and
 * `{name, folder_id}` a sub-folder of the same kind as its parent. Rename is /folder/update.
 */
export function folderRoutes(ctx: PluginContext, inventory: Inventory): void {
  const { router, db } = ctx;

  router.post('/folder/add', { permission: 'admin', body: FolderAdd, response: Created }, async ({ body, em }) => {
    const given = (['center', 'room', 'folder_id'] as const).filter((key) => body[key] !== undefined);
    if (given.length !== 1)
      throw badRequest(ErrorCode.invalidField, "give exactly one of 'center', 'room' or 'folder_id'", given[1] ?? 'center');
    if (body.center !== undefined) {
      const center = await requireRow(em, CenterEntity, toInt(body.center), 'center');
      return { id: await addRoomFolder(center.id, null) };
    }
    if (body.room !== undefined) {
      const room = await requireRow(em, RoomEntity, toInt(body.room), 'room');
      return { id: computerFolderPublicId(await addComputerFolder(room.id, null)) };
    }
    const parent = parseFolderId(toInt(body.folder_id!), 'folder_id');
    if (parent.kind === 'room') {
      const folder = await requireRow(em, RoomFolderEntity, parent.id, 'folder_id');
      return { id: await addRoomFolder(folder.center.id, folder.id) };
    }
    const folder = await requireRow(em, ComputerFolderEntity, parent.id, 'folder_id');
    return { id: computerFolderPublicId(await addComputerFolder(folder.room.id, folder.id)) };

    /**
     * Insert a folder and return its table id. Past MAX_FOLDER_ROW_ID its public id would
     * leave its kind's range and collide with another folder's: refused, and rolled back.
     */
    function addRoomFolder(center: number, parent: number | null): Promise<number> {
      return addFolder('room', (tx) => tx.create(RoomFolderEntity, { name: body.name, center, parent }));
    }
    function addComputerFolder(room: number, parent: number | null): Promise<number> {
      return addFolder('computer', (tx) => tx.create(ComputerFolderEntity, { name: body.name, room, parent }));
    }
    async function addFolder(kind: FolderRef['kind'], create: (tx: EntityManager) => { id: number }): Promise<number> {
      return db.transactional(async (tx) => {
        const folder = create(tx);
        await tx.flush();
        if (folder.id > MAX_FOLDER_ROW_ID)
          throw badRequest(ErrorCode.conflict, `no more ${kind} folders can be created (at most ${MAX_FOLDER_ROW_ID})`);
        return folder.id;
      });
    }
  });

  router.post('/folder/update', { permission: 'admin', body: FolderUpdate, response: Done }, async ({ body, em }) => {
    const ref = parseFolderId(toInt(body.id), 'id');
    const folder =
      ref.kind === 'room' ? await requireRow(em, RoomFolderEntity, ref.id, 'id') : await requireRow(em, ComputerFolderEntity, ref.id, 'id');
    folder.name = body.name;
    await em.flush();
    return {};
  });

  // Deleting a folder deletes what it holds, sub-folders included; unknown ids answer 200,
  // ids no folder can have a 400.
  router.post('/folder/delete', { permission: 'admin', body: IdBody, response: Done }, async ({ body, log }) => {
    const ref = parseFolderId(toInt(body.id), 'id');
    const [tree, column, entity] =
      ref.kind === 'room' ? [roomFolderTree, 'r.folder_id', RoomFolderEntity] : [computerFolderTree, 'c.folder_id', ComputerFolderEntity];
    await deleteWithClients(
      db,
      inventory,
      log,
      (em) => clientsInTree(em, tree, column, ref.id),
      (em) => em.nativeDelete(entity as typeof RoomFolderEntity, { id: ref.id }),
    );
    return {};
  });

  /** Every client below a folder, sub-folders included, read inside the deleting transaction. */
  async function clientsInTree(em: EntityManager, tree: string, column: string, id: number): Promise<ClientView[]> {
    const rows = await execute<{ id: number }>(em, `${tree} select id from tree`, [id]);
    const ids = rows.map((r) => Number(r.id));
    return ids.length ? clientsWhere(em, `${column} in (${ids.map(() => '?').join(',')})`, ids) : [];
  }
}
