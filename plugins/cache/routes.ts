import type { Static } from '@sinclair/typebox';
import { ErrorCode, badRequest, PreparedJson, type PluginContext, toInt } from 'ogserve';
import { type AgentLink, type Dispatch, DispatchAnswer } from '../agents';
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
  router.get('/cache/list', { permission: 'read', scoped: 'clients', body: CacheList, response: CacheListing }, async ({ body }) => {
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
  });

  // Each client gets only `images`; it deletes those it holds and answers with the rest.
  router.post(
    '/cache/delete',
    { permission: 'operate', scoped: 'clients', body: CacheDelete, response: DispatchAnswer },
    async ({ body }) => {
      const dispatch = await link.dispatch(body.clients, { method: 'POST', path: 'cache/delete', body: { images: body.images } });
      return { clients: dispatch.outcomes };
    },
  );

  router.post('/cache/fetch', { permission: 'operate', scoped: 'clients', body: CacheFetch, response: DispatchAnswer }, async ({ body }) =>
    fetchIntoCaches(body),
  );

  async function fetchIntoCaches(body: Static<typeof CacheFetch>): Promise<{ clients: Dispatch['outcomes'] }> {
    const named =
      body.repository_id !== undefined
        ? await inventory.repository(toInt(body.repository_id))
        : body.repository !== undefined
          ? await inventory.repositoryByAddress(body.repository)
          : null;
    if (body.repository_id !== undefined && !named)
      throw badRequest(ErrorCode.unknownId, `no repository with id ${body.repository_id}`, 'repository_id');
    const clients = new Map((await inventory.clientsByIps(body.clients)).map((c) => [c.ip, c]));
    const byAddress = new Map<string, string[]>();
    for (const ip of new Set(body.clients)) {
      const address = await addressFor(clients.get(ip), named?.addresses, body.repository);
      if (!address)
        throw badRequest(
          ErrorCode.missingField,
          `'repository_id' is required: client ${ip} has no repository with an address`,
          'repository_id',
        );
      byAddress.set(address, [...(byAddress.get(address) ?? []), ip]);
    }
    const outcomes = new Map<string, Dispatch['outcomes'][number]>();
    for (const [address, ips] of byAddress) {
      const dispatch = await link.dispatch(ips, { method: 'POST', path: 'cache/fetch', body: { name: body.image, repository: address } });
      for (const outcome of dispatch.outcomes) outcomes.set(outcome.addr, outcome);
    }
    return { clients: [...new Set(body.clients)].map((ip) => outcomes.get(ip)!) };
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
