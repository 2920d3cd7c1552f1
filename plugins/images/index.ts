import { Type } from '@sinclair/typebox';
import { definePlugin } from 'ogserve';
import { AgentCommands, AgentLink, SoftwareInventory } from '../agents';
import { Inventory } from '../inventory';
import { captureHandler, restoreHandler } from './capture';
import { ImageCommands } from './commands';
import { ImageEntity } from './entities/image';
import { ImageScopeEntity } from './entities/image-scope';
import { PendingCreates } from './pending';
import { createRoutes } from './routes/create';
import { holderRoutes } from './routes/holders';
import { listRoutes } from './routes/list';
import { recordRoutes } from './routes/records';
import { RestoreMethods } from './restore-methods';
import { restoreRoutes } from './routes/restore';
import { ImageRunLog } from './run-log';
import { ImageStore } from './store';

export { ImageStore } from './store';
/** Restore types other plugins carry out (the multicast plugin's MULTICAST): `ctx.use(RestoreMethods).add(...)`. */
export {
  RestoreMethods,
  type MethodRestore,
  type PreparedMethodRestore,
  type RestoreMethod,
  type RestoredImage,
} from './restore-methods';
export type { RestoreParams } from './commands';
export { imageHoldings, writeImages, type ImportedImage } from './import';
/** An image's record (its columns' lengths bound an import's fields) and the rules of POST /image/create. */
export { ImageEntity, MONOLITHIC } from './entities/image';
export { ImageCreateParams } from './schemas';

/**
 * Its config section, `repository`: the name the reference's ogserver.json and sites' files
 * already give it. Image files live in `directory` (relative: in the state directory).
 */
export const ImagesConfig = Type.Object(
  { directory: Type.String({ default: 'images', path: true }) },
  { additionalProperties: false, default: {} },
);

/**
 * Disk images: their records, the repository directory's files, and image creation and
 * restoration relayed to the agents.
 */
export default definePlugin({
  name: 'images',
  section: 'repository',
  requires: ['inventory', 'agents'],
  schemaVersion: 1,
  entities: [ImageEntity, ImageScopeEntity],
  config: ImagesConfig,
  register(ctx) {
    const inventory = ctx.use(Inventory);
    const link = ctx.use(AgentLink);
    const store = ctx.make(ImageStore);
    const pending = ctx.make(PendingCreates);
    ctx.provide(ImageStore, store);
    const methods = new RestoreMethods();
    ctx.provide(RestoreMethods, methods);
    const software = ctx.use(SoftwareInventory);
    const { directory } = ctx.config;
    const runs = ctx.make(ImageRunLog);
    runs.listen(ctx.events);
    const commands = ctx.make(ImageCommands);
    commands.define(ctx.use(AgentCommands), {
      create: captureHandler(store, inventory, software, pending, directory, (image) => {
        runs.stored(image.client, image.image);
        void ctx.events.emit('image.created', image);
      }),
      restore: restoreHandler(store, inventory, methods, (image) => void ctx.events.emit('image.restored', image)),
    });
    listRoutes(ctx, store, inventory, directory);
    holderRoutes(ctx, store, inventory);
    createRoutes(ctx, commands, link, pending);
    recordRoutes(ctx, store, inventory, directory);
    restoreRoutes(ctx, commands, inventory, link, methods, directory);
  },
});
