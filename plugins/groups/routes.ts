import type { IncomingMessage } from 'node:http';
import { type Access, ErrorCode, HttpError, type PluginEvents, type RouteRegistrar, badRequest } from 'ogserve';
import type { ClientView } from '../inventory';
import { auditGroup } from './audit';
import { Deleted, GroupBody, GroupList, GroupView } from './schemas';
import type { Groups } from './service';

function idOf(req: IncomingMessage): number {
  const raw = (req as IncomingMessage & { params?: Record<string, string> }).params?.id ?? '';
  if (!/^[1-9][0-9]{0,9}$/.test(raw)) throw badRequest(ErrorCode.invalidField, "'id' must be a positive integer", 'id');
  return Number(raw);
}

/** The PCs a caller may see of those found: a key limited to rooms sees only its own. */
async function visible(clients: ClientView[], access: Access | undefined): Promise<string[]> {
  const inside = await access?.scope?.addresses();
  return clients.filter((c) => !inside || inside.has(c.ip)).map((c) => c.ip);
}

/**
 * GET /groups and GET /groups/:id (read; a limited key sees the PCs it may reach, so it may
 * act on a group's PCs inside its rooms), and the writes (admin: groups are targets of the
 * schedules and power calendars of the whole site).
 */
export function groupRoutes(router: RouteRegistrar, groups: Groups, events: Pick<PluginEvents, 'tell'>): void {
  router.get(
    '/groups',
    {
      permission: 'read',
      scoped: 'filtered',
      bodyPolicy: 'forbidden',
      response: GroupList,
      summary: 'The saved groups, with how many PCs each finds now',
    },
    async ({ access, em }) => {
      const all = await groups.allWithClients(em);
      return { groups: await Promise.all(all.map(async ({ found, ...g }) => ({ ...g, count: (await visible(found, access)).length }))) };
    },
  );
  router.get(
    '/groups/:id',
    {
      permission: 'read',
      scoped: 'filtered',
      bodyPolicy: 'forbidden',
      response: GroupView,
      summary: 'One saved group and the PCs its filter finds now',
    },
    async ({ req, access, em }) => {
      const id = idOf(req);
      const group = await groups.get(id, em);
      if (!group) throw new HttpError(404, ErrorCode.notFound, `no group with id ${id}`);
      return { ...group, clients: await visible(await groups.find(group.filter), access) };
    },
  );
  router.post(
    '/groups',
    { permission: 'admin', body: GroupBody, response: GroupView, summary: 'Save a filter of the fleet as a named group' },
    async ({ req, body, em }) => {
      const group = await groups.save(body, undefined, em);
      await auditGroup(events, req, null, group);
      return { ...group, clients: (await groups.find(group.filter)).map((c) => c.ip) };
    },
  );
  router.post(
    '/groups/:id',
    { permission: 'admin', body: GroupBody, response: GroupView, summary: "Replace a group's name and filter" },
    async ({ req, body, em }) => {
      const id = idOf(req);
      const before = await groups.get(id, em);
      const group = await groups.save(body, id, em);
      await auditGroup(events, req, before, group);
      return { ...group, clients: (await groups.find(group.filter)).map((c) => c.ip) };
    },
  );
  router.delete(
    '/groups/:id',
    {
      permission: 'admin',
      bodyPolicy: 'forbidden',
      response: Deleted,
      summary: 'Delete a group (refused, 409, while a schedule or power calendar targets it)',
    },
    async ({ req, em }) => {
      const id = idOf(req);
      const before = await groups.get(id, em);
      await groups.remove(id, em);
      await auditGroup(events, req, before, null);
      return { id };
    },
  );
}
