import { Type } from '@sinclair/typebox';
import { definePlugin } from 'ogserve';
import { AgentLink, type AgentAnswer } from '../agents';
import { Inventory, type ClientView } from '../inventory';
import { CacheAnswerError, readCache } from './answer';
import { CacheEntryEntity } from './entities/cache-entry';
import { cacheRoutes } from './routes';
import { CacheStore } from './store';

export { CacheStore } from './store';

/**
 * What each client's cache partition holds, as its agent reports it in refresh, setup,
 * cache/delete and cache/fetch answers; listing, deleting and fetching cached images.
 */
export default definePlugin({
  name: 'cache',
  requires: ['inventory', 'agents'],
  schemaVersion: 1,
  entities: [CacheEntryEntity],
  config: Type.Object({}, { additionalProperties: false }),
  register(ctx) {
    const inventory = ctx.use(Inventory);
    const link = ctx.use(AgentLink);
    const store = ctx.make(CacheStore);
    ctx.cluster.onReconnect(() => store.forgetAll());
    ctx.cluster.on<number>(
      'cache.replaced',
      (clientId) =>
        void store.changedElsewhere(clientId).catch((error: unknown) => ctx.log.error({ err: error }, 'cache contents not read again')),
    );
    ctx.provide(CacheStore, store);

    // A configuration answer (refresh, setup) lists the cache, or has no `cache` key when
    // the client has no cache partition. A Linux or Windows agent (`status`) says nothing
    // about disks, so its answer leaves the stored contents alone.
    const fromConfiguration = async (client: ClientView, answer: AgentAnswer) => {
      if (typeof answer.body === 'object' && answer.body !== null && 'status' in answer.body) return;
      await store.replace(client.id, readCache(answer.body) ?? []);
    };
    link.onAnswer('refresh', fromConfiguration);
    link.onAnswer('setup', fromConfiguration);

    // The answers to cache commands must list what is left.
    const fromCacheCommand = async (client: ClientView, answer: AgentAnswer) => {
      const images = readCache(answer.body);
      if (!images) throw new CacheAnswerError("the answer has no 'cache' key");
      await store.replace(client.id, images);
    };
    link.onAnswer('cache/delete', fromCacheCommand);
    link.onAnswer('cache/fetch', fromCacheCommand);
    ctx.events.on('clients.removed', (clients) => store.forget(clients.map((c) => c.id)));

    cacheRoutes(ctx, store, inventory, link);
  },
});
