import { Type } from '@sinclair/typebox';
import { definePlugin } from '../../core/plugin';
import { AgentLink, SoftwareInventory } from '../agents';
import { Inventory } from '../inventory';
import { captureHandler, restoreHandler } from './capture';
import { ImageEntity } from './entities/image';
import { ImageScopeEntity } from './entities/image-scope';
import { PendingCreates } from './pending';
import { createRoutes } from './routes/create';
import { listRoutes } from './routes/list';
import { recordRoutes } from './routes/records';
import { restoreRoutes } from './routes/restore';
import { ImageStore } from './store';

export { ImageStore } from './store';

/**
 * Disk images: their records, the repository directory's files, and image creation and
 * restoration relayed to the agents. Image files live in `repository.directory`.
 */
export default definePlugin({
  name: 'images',
  requires: ['inventory', 'agents'],
  schemaVersion: 1,
  entities: [ImageEntity, ImageScopeEntity],
  config: Type.Object({}, { additionalProperties: false }),
  register(ctx) {
    const inventory = ctx.use(Inventory);
    const link = ctx.use(AgentLink);
    const store = new ImageStore(ctx.db);
    const pending = new PendingCreates();
    ctx.provide(ImageStore, store);
    link.onAnswer('image/create', captureHandler(store, inventory, ctx.use(SoftwareInventory), pending, ctx.settings.repository.directory));
    link.onAnswer('image/restore', restoreHandler(store, inventory));
    listRoutes(ctx, store, inventory);
    createRoutes(ctx, store, inventory, link, pending);
    recordRoutes(ctx, store, inventory);
    restoreRoutes(ctx, store, inventory, link);
  },
});
