import { ErrorCode, badRequest, type PluginContext, toInt } from 'ogserve';
import { Done, type Inventory } from '../../inventory';
import type { ImageTrashCan } from '../life/trash';
import { ImageDelete, ImageQuery, ImageRestrict, ImageScopes, ImageUpdate } from '../schemas';
import type { ImageChanges, ImageStore } from '../store';
import { requireImage, requireRepository } from './lookups';

/** POST /image/update, POST /image/delete and GET/POST /image/restrict: the image records themselves. */
export function recordRoutes(ctx: PluginContext, store: ImageStore, inventory: Inventory, trash: ImageTrashCan): void {
  const { router, log } = ctx;

  router.post(
    '/image/update',
    { permission: 'image', body: ImageUpdate, response: Done, summary: "Change an image's record" },
    async ({ body }) => {
      const id = toInt(body.id);
      const changes: ImageChanges = {};
      if (body.description !== undefined) changes.description = body.description;
      if (body.center_id !== undefined) changes.centerId = toInt(body.center_id);
      if (body.group_id !== undefined) changes.groupId = toInt(body.group_id);
      if (body.software_id !== undefined) changes.softwareId = toInt(body.software_id);
      if (body.type !== undefined) changes.type = toInt(body.type);
      if (body.repository_id !== undefined)
        changes.repositoryId = (await requireRepository(inventory, toInt(body.repository_id), 'repository_id')).id;
      if (!(await store.update(id, changes))) throw badRequest(ErrorCode.unknownId, `no image with id ${id}`, 'id');
      return {};
    },
  );

  // The record goes first (into the trash, with its versions); its files follow, moved to the
  // trash or removed. A file that is not there is not an error: the image may live in another
  // repository (the spec).
  router.post(
    '/image/delete',
    { permission: 'image', body: ImageDelete, response: Done, summary: 'Delete an image: its record and files go to the trash' },
    async ({ body, em }) => {
      const id = toInt(body.image);
      const deleted = await trash.delete(id, em);
      if (deleted === undefined) throw badRequest(ErrorCode.unknownId, `no image with id ${id}`, 'image');
      await inventory.forgetImage(id);
      log.info({ image: deleted.name, trash: deleted.kept }, deleted.kept ? 'image deleted (kept in the trash)' : 'image deleted');
      return {};
    },
  );

  // An image may be restricted to a set of centers: it is then restored only on clients of
  // those centers. An empty list lifts the restriction.
  router.get(
    '/image/restrict',
    { permission: 'read', scoped: 'open', body: ImageQuery, response: ImageScopes, summary: 'The centers an image is restored in' },
    async ({ body, em }) => {
      const image = await requireImage(store, em, toInt(body.image), 'image');
      return { image: image.id, scopes: await store.scopes(image.id) };
    },
  );

  router.post(
    '/image/restrict',
    { permission: 'image', body: ImageRestrict, response: Done, summary: 'Restrict an image to centers' },
    async ({ body, em }) => {
      const image = await requireImage(store, em, toInt(body.image), 'image');
      await store.setScopes(image.id, body.scopes.map(toInt));
      return {};
    },
  );
}
