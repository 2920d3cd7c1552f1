import type { EntityManager } from '@mikro-orm/core';
import { ErrorCode, badRequest, MAX_INT, isDecimalInt, type PluginContext, toInt } from 'ogserve';
import { RepositoryAddressEntity, RepositoryEntity } from '../entities/repository';
import { requireRow } from '../lookups';
import { Created, Done, IdBody, RepositoryAdd, RepositoryList, RepositoryQuery, RepositoryUpdate } from '../schemas';

/** Addresses of one request: no repeats, none held by another repository. */
async function checkAddresses(em: EntityManager, ip: string | string[], selfId: number): Promise<string[]> {
  const addresses = Array.isArray(ip) ? ip : [ip];
  if (new Set(addresses).size !== addresses.length) throw badRequest(ErrorCode.duplicate, 'an address is listed twice', 'ip');
  const taken = await em.find(RepositoryAddressEntity, { ip: { $in: addresses }, repository: { $ne: selfId } });
  if (taken.length > 0)
    throw badRequest(ErrorCode.duplicate, `address ${taken[0]!.ip} is used by repository ${taken[0]!.repository.id}`, 'ip');
  return addresses;
}

/**
 * `ip` is the first address (what existing consoles read); `addresses` lists them all.
 */
export function repositoryRoutes(ctx: PluginContext): void {
  const { router, db } = ctx;

  router.get(
    '/repositories',
    { permission: 'read', scoped: 'open', body: RepositoryQuery, bodyPolicy: 'optional', response: RepositoryList },
    async ({ body, req }) => {
      // The query string gets the body's rule: plain decimal digits, nothing parseInt would forgive.
      const query = new URL(req.url ?? '/', 'http://x').searchParams.get('id');
      if (query !== null && !isDecimalInt(query))
        throw badRequest(ErrorCode.invalidField, `'id' must be a decimal integer up to ${MAX_INT}`, 'id');
      const raw = body.id ?? (query === null ? undefined : query);
      const id = raw === undefined ? undefined : toInt(raw);
      const rows = await db.query<{ id: number; name: string; center: number; ip: string | null }>(
        `select r.id, r.name, r.center, a.ip from repositories r left join repository_addresses a on a.repository_id = r.id
       ${id === undefined ? '' : 'where r.id = ?'} order by r.id, a.id`,
        id === undefined ? [] : [id],
      );
      if (id !== undefined && rows.length === 0) throw badRequest(ErrorCode.unknownId, `no repository with id ${id}`, 'id');
      const byId = new Map<number, { id: number; name: string; center: number; ip: string; addresses: string[] }>();
      for (const row of rows) {
        const repoId = Number(row.id);
        let repo = byId.get(repoId);
        if (!repo) byId.set(repoId, (repo = { id: repoId, name: row.name, center: Number(row.center), ip: '', addresses: [] }));
        if (row.ip) repo.addresses.push(row.ip);
        repo.ip = repo.addresses[0] ?? '';
      }
      return { repositories: [...byId.values()] };
    },
  );

  router.post('/repository/add', { permission: 'admin', body: RepositoryAdd, response: Created }, async ({ body, em: unit }) => {
    const id = await db.transactional(async (em) => {
      const addresses = await checkAddresses(em, body.ip, 0);
      const repository = em.create(RepositoryEntity, { name: body.name, center: 1 });
      await em.flush();
      for (const ip of addresses) em.create(RepositoryAddressEntity, { repository, ip });
      await em.flush();
      return repository.id;
    }, unit);
    return { id };
  });

  router.post('/repository/update', { permission: 'admin', body: RepositoryUpdate, response: Done }, async ({ body, em: unit }) => {
    await db.transactional(async (em) => {
      const id = toInt(body.repo_id);
      const repository = await requireRow(em, RepositoryEntity, id, 'repo_id');
      const addresses = await checkAddresses(em, body.ip, id);
      repository.name = body.name;
      if (body.center !== undefined) repository.center = toInt(body.center);
      await em.nativeDelete(RepositoryAddressEntity, { repository: id });
      for (const ip of addresses) em.create(RepositoryAddressEntity, { repository, ip });
      await em.flush();
    }, unit);
    return {};
  });

  // Clients that used the repository keep no repository (the foreign key sets it to null).
  router.post('/repository/delete', { permission: 'admin', body: IdBody, response: Done }, async ({ body, em }) => {
    const repository = await requireRow(em, RepositoryEntity, toInt(body.id), 'id');
    await em.nativeDelete(RepositoryEntity, { id: repository.id });
    return {};
  });
}
