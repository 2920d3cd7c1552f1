import { Type } from '@sinclair/typebox';
import { definePlugin } from 'ogserve';
import { Inventory } from '../inventory';
import { BootFiles } from '../pxe-modes';
import { LiveCatalog } from './catalog';
import { LiveImageEntity } from './entities/live-image';
import { liveRoutes } from './routes';

export { LiveCatalog } from './catalog';

export default definePlugin({
  name: 'live',
  requires: ['inventory', 'pxe-modes'],
  entities: [LiveImageEntity],
  schemaVersion: 1,
  config: Type.Object(
    {
      /** Where live images (ogLive-* directories, the ogLive default link) are found. */
      directory: Type.String({ default: 'tftpboot', path: true }),
      /** An OpenGnsys ogliveinfo.json to list as well; default: <directory>/ogliveinfo.json. */
      info_file: Type.Optional(Type.String({ path: true })),
    },
    { additionalProperties: false },
  ),
  register(ctx) {
    const catalog = ctx.make(LiveCatalog);
    ctx.provide(LiveCatalog, catalog);
    liveRoutes(ctx, catalog, ctx.use(Inventory), ctx.use(BootFiles));
  },
});
