import type { Static } from '@sinclair/typebox';
import { ErrorCode, badRequest, PreparedJson, type PluginContext, toInt } from 'ogserve';
import { type AgentLink, askerOf, type Asker, DispatchAnswer, dispatchAnswer, dispatchEach, paramsOf } from '../agents';
import type { ClientView, Inventory } from '../inventory';
import { repositoryAddressFor } from '../inventory';
import { cacheListingJson } from './listing';
import { CacheDelete, CacheFetch, CacheList, CacheListing } from './schemas';
import type { CacheStore } from './store';

/**
 * GET /cache/list reads what agents last reported; POST /cache/delete and /cache/fetch
 * are relayed, and their answers replace the stored contents.
 */
export function cacheRoutes(ctx: PluginContext, store: CacheStore, inventory: Inventory, link: AgentLink): void {
  const { router } = ctx;

  // Unknown addresses are left out, as commands skip them; the order is the one asked.
  router.get(
    '/cache/list',
    { permission: 'read', scoped: { clients: 'clients' }, body: CacheList, response: CacheListing },
    async ({ body }) => {
      const clients = await inventory.clientsByIps(body.clients);
      const contents = await store.contents(clients.map((c) => c.id));
      // The cache partition: the one the agent formatted with the CACHE file system.
      const cacheSizes = await inventory.partitionSizes(
        clients.map((c) => c.id),
        'CACHE',
      );
      return new PreparedJson(
        cacheListingJson(clients.map((c) => ({ ip: c.ip, cacheSize: cacheSizes.get(c.id) ?? 0n, images: contents.get(c.id)! }))),
      );
    },
  );

  // Each client gets only `images`; it deletes those it holds and answers with the rest.
  router.post(
    '/cache/delete',
    { permission: 'operate', scoped: { clients: 'clients' }, body: CacheDelete, response: DispatchAnswer },
    async ({ body, access, req }) => {
      const request = { method: 'POST', path: 'cache/delete', body: { images: body.images } } as const;
      const origin = { kind: request.path, params: request.body, asker: askerOf(access, req) };
      return dispatchAnswer(await dispatchEach(link, body.clients, () => request, origin));
    },
  );

  router.post(
    '/cache/fetch',
    { permission: 'operate', scoped: { clients: 'clients' }, body: CacheFetch, response: DispatchAnswer },
    async ({ body, access, req }) => fetchIntoCaches(body, askerOf(access, req)),
  );

  async function fetchIntoCaches(body: Static<typeof CacheFetch>, asker: Asker | undefined): Promise<ReturnType<typeof dispatchAnswer>> {
    const named =
      body.repository_id !== undefined
        ? await inventory.repository(toInt(body.repository_id))
        : body.repository !== undefined
          ? await inventory.repositoryByAddress(body.repository)
          : null;
    if (body.repository_id !== undefined && !named)
      throw badRequest(ErrorCode.unknownId, `no repository with id ${body.repository_id}`, 'repository_id');
    const clients = new Map((await inventory.clientsByIps(body.clients)).map((c) => [c.ip, c]));
    const addressOf = new Map<string, string>();
    for (const ip of new Set(body.clients)) {
      const address = await addressFor(clients.get(ip), named?.addresses, body.repository);
      if (!address)
        throw badRequest(
          ErrorCode.missingField,
          `'repository_id' is required: client ${ip} has no repository with an address`,
          'repository_id',
        );
      addressOf.set(ip, address);
    }
    // Clients of one repository address share a request; all of them are one job.
    const requestFor = (ip: string) =>
      ({ method: 'POST', path: 'cache/fetch', body: { name: body.image, repository: addressOf.get(ip)! } }) as const;
    return dispatchAnswer(await dispatchEach(link, body.clients, requestFor, { kind: 'cache/fetch', params: paramsOf(body), asker }));
  }

  /** The named repository's address for this client; without one, the client's own repository's. */
  async function addressFor(
    client: ClientView | undefined,
    addresses: string[] | undefined,
    asked: string | undefined,
  ): Promise<string | undefined> {
    if (addresses) return repositoryAddressFor(client, addresses, asked);
    if (asked !== undefined) return asked;
    const own = client?.repositoryId ? await inventory.repository(client.repositoryId) : null;
    return own ? repositoryAddressFor(client, own.addresses) : undefined;
  }
}
