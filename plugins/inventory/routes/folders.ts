import type { EntityManager } from '@mikro-orm/core';
import { execute } from '../../../core/database';
import type { ClientView } from '../client-view';
import { ErrorCode, badRequest } from '../../../core/errors';
import type { PluginContext } from '../../../core/plugin';
import { toInt } from '../../../core/schema-types';
import { CenterEntity } from '../entities/center';
import { ComputerFolderEntity, RoomFolderEntity } from '../entities/folder';
import { RoomEntity } from '../entities/room';
import { COMPUTER_FOLDER_MARKER, computerFolderPublicId, parseFolderId } from '../folder-ids';
import { deleteWithClients } from '../cascade';
import { requireRow } from '../lookups';
import { FolderAdd, FolderUpdate, IdBody } from '../schemas';
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

  router.post('/folder/add', { body: FolderAdd }, async ({ body, em }) => {
    const given = (['center', 'room', 'folder_id'] as const).filter((key) => body[key] !== undefined);
    if (given.length !== 1) throw badRequest(ErrorCode.invalidField, "give exactly one of 'center', 'room' or 'folder_id'", given[1] ?? 'center');
    if (body.center !== undefined) {
      const center = await requireRow(em, CenterEntity, toInt(body.center), 'center');
      return { id: await addRoomFolder(center.id, null) };
    }
    if (body.room !== undefined) {
      const room = await requireRow(em, RoomEntity, toInt(body.room), 'room');
      const folder = em.create(ComputerFolderEntity, { name: body.name, room: room.id, parent: null } as never);
      await em.flush();
      return { id: computerFolderPublicId(folder.id) };
    }
    const parent = parseFolderId(toInt(body.folder_id!));
    if (parent.kind === 'room') {
      const folder = await requireRow(em, RoomFolderEntity, parent.id, 'folder_id');
      return { id: await addRoomFolder(folder.center.id, folder.id) };
    }
    const folder = await requireRow(em, ComputerFolderEntity, parent.id, 'folder_id');
    const child = em.create(ComputerFolderEntity, { name: body.name, room: folder.room.id, parent: folder.id } as never);
    await em.flush();
    return { id: computerFolderPublicId(child.id) };

    async function addRoomFolder(centerId: number, parentId: number | null): Promise<number> {
      // Room folder ids must stay below the computer-folder marker; refuse rather than collide.
      return db.transactional(async (tx) => {
        const folder = tx.create(RoomFolderEntity, { name: body.name, center: centerId, parent: parentId } as never);
        await tx.flush();
        if (folder.id >= COMPUTER_FOLDER_MARKER) throw badRequest(ErrorCode.conflict, 'no more room folders can be created (at most 65535)');
        return folder.id;
      });
    }
  });

  router.post('/folder/update', { body: FolderUpdate }, async ({ body, em }) => {
    const ref = parseFolderId(toInt(body.id));
    const entity = ref.kind === 'room' ? RoomFolderEntity : ComputerFolderEntity;
    const folder = await requireRow<{ name: string }>(em, entity as never, ref.id, 'id');
    folder.name = body.name;
    await em.flush();
    return {};
  });

  // Deleting a folder deletes what it holds, sub-folders included; unknown ids answer 200.
  router.post('/folder/delete', { body: IdBody }, async ({ body }) => {
    const ref = parseFolderId(toInt(body.id));
    const [tree, column, entity] =
      ref.kind === 'room' ? [roomFolderTree, 'r.folder_id', RoomFolderEntity] : [computerFolderTree, 'c.folder_id', ComputerFolderEntity];
    await deleteWithClients(
      db,
      inventory,
      (em) => clientsInTree(em, tree, column, ref.id),
      (em) => em.nativeDelete(entity as typeof RoomFolderEntity, { id: ref.id }),
    );
    return {};
  });

  /** Every client below a folder, sub-folders included, read inside the deleting transaction. */
  async function clientsInTree(em: EntityManager, tree: string, column: string, id: number): Promise<ClientView[]> {
    const rows = await execute<{ id: number }>(em, `${tree} select id from tree`, [id]);
    const ids = rows.map((r) => Number(r.id));
    return ids.length ? inventory.clientsWhere(`${column} in (${ids.map(() => '?').join(',')})`, ids, em) : [];
  }
}
