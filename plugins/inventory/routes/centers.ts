import { ErrorCode, badRequest, type PluginContext, toInt } from 'ogserve';
import { CenterEntity } from '../entities/center';
import { deleteWithClients } from '../cascade';
import { clientsWhere } from '../client-view';
import { requireRow } from '../lookups';
import { CenterAdd, CenterInfo, CenterUpdate, Created, Done, IdBody } from '../schemas';
import type { Inventory } from '../service';

export function centerRoutes(ctx: PluginContext, inventory: Inventory): void {
  const { router, db } = ctx;

  router.post('/center/add', { permission: 'admin', body: CenterAdd, response: Created }, async ({ body, em }) => {
    if (await em.count(CenterEntity, { name: body.name }))
      throw badRequest(ErrorCode.duplicate, `a center named '${body.name}' already exists`, 'name');
    const center = em.create(CenterEntity, { name: body.name, comment: body.comment ?? '' });
    await em.flush();
    return { id: center.id };
  });

  router.post('/center/update', { permission: 'admin', body: CenterUpdate, response: Done }, async ({ body, em }) => {
    const id = toInt(body.id);
    const center = await requireRow(em, CenterEntity, id, 'id');
    if (await em.count(CenterEntity, { name: body.name, id: { $ne: id } })) {
      throw badRequest(ErrorCode.duplicate, `another center is named '${body.name}'`, 'name');
    }
    center.name = body.name;
    if (body.comment !== undefined) center.comment = body.comment;
    await em.flush();
    return {};
  });

  router.get('/center/info', { permission: 'read', body: IdBody, response: CenterInfo }, async ({ body, em }) => {
    const center = await requireRow(em, CenterEntity, toInt(body.id), 'id');
    return { id: center.id, name: center.name, comment: center.comment };
  });

  // Unknown ids answer 200, as the reference does. Rooms, folders, clients and partitions go
  // with the center through the database's cascades, in one transaction; images stay.
  router.post('/center/delete', { permission: 'admin', body: IdBody, response: Done }, async ({ body, log }) => {
    const id = toInt(body.id);
    await deleteWithClients(
      db,
      inventory,
      log,
      (em) => clientsWhere(em, 'r.center_id = ?', [id]),
      (em) => em.nativeDelete(CenterEntity, { id }),
    );
    return {};
  });
}
