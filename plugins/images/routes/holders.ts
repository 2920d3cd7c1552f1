import { Type } from '@sinclair/typebox';
import { ErrorCode, MAX_INT, badRequest, type PluginContext } from 'ogserve';
import type { Inventory } from '../../inventory';
import type { ImageStore } from '../store';
import { requireImage } from './lookups';

const Holders = Type.Object({
  clients: Type.Array(Type.String({ description: 'a client address' }), {
    description: 'the clients one of whose partitions holds the image (created there or restored onto it)',
  }),
});

/**
 * GET /image/clients?id=<n>: which PCs hold an image, so that a console can narrow its fleet
 * to them. A limited token hears only of its own PCs.
 */
export function holderRoutes(ctx: PluginContext, store: ImageStore, inventory: Inventory): void {
  ctx.router.get(
    '/image/clients',
    {
      permission: 'read',
      scoped: 'filtered',
      bodyPolicy: 'forbidden',
      response: Holders,
      summary: 'The clients one of whose partitions holds the image ?id=',
    },
    async ({ query, em, access }) => {
      const raw = query.get('id');
      const id = Number(raw);
      if (raw === null || !/^\d+$/.test(raw) || id < 1 || id > MAX_INT)
        throw badRequest(ErrorCode.invalidField, 'id: the image id, a whole number from 1', 'id');
      await requireImage(store, em, id, 'id');
      const holders = await inventory.clientsWithImage(id);
      const allowed = await access?.scope?.addresses();
      return { clients: allowed ? holders.filter((ip) => allowed.has(ip)) : holders };
    },
  );
}
