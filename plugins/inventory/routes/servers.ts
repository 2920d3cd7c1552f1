import { ErrorCode, badRequest, type PluginContext, toInt } from 'ogserve';
import { ServerEntity } from '../entities/server';
import { requireRow } from '../lookups';
import { Created, Done, IdBody, ServerAdd, ServerList } from '../schemas';

/** GET lists, POST `{ip, port?}` adds, DELETE `{id}` removes (clients assigned to it keep none). */
export function serverRoutes(ctx: PluginContext): void {
  const { router } = ctx;

  router.get('/server', { permission: 'read', scoped: 'open', response: ServerList }, async ({ em }) => {
    const servers = await em.find(ServerEntity, {}, { orderBy: { id: 'asc' } });
    return { servers: servers.map((s) => ({ id: s.id, ip: s.ip, port: s.port })) };
  });

  router.post('/server', { permission: 'admin', body: ServerAdd, response: Created }, async ({ body, em }) => {
    if (await em.count(ServerEntity, { ip: body.ip }))
      throw badRequest(ErrorCode.duplicate, `a server with ip ${body.ip} already exists`, 'ip');
    const server = em.create(ServerEntity, { ip: body.ip, port: body.port ?? 2008 });
    await em.flush();
    return { id: server.id };
  });

  router.delete('/server', { permission: 'admin', body: IdBody, response: Done }, async ({ body, em }) => {
    const server = await requireRow(em, ServerEntity, toInt(body.id), 'id');
    await em.nativeDelete(ServerEntity, { id: server.id });
    return {};
  });
}
