import { Type } from '@sinclair/typebox';
import { definePlugin } from 'ogserve';
import { Inventory } from '../inventory';
import { BootFiles } from '../pxe-modes';
import { LiveCatalog } from './catalog';
import { LiveImageEntity } from './entities/live-image';
import { LiveKernelEntity } from './entities/live-kernel';
import { KernelSignatures } from './kernel-signatures';
import { LiveInstaller } from './installer';
import { installRoutes } from './install-routes';
import { liveRoutes } from './routes';

export { LiveCatalog } from './catalog';
export { peSignature, signatureOf, type PeSignature } from './authenticode';
export { KernelSignatures, type KernelSignature } from './kernel-signatures';

export default definePlugin({
  name: 'live',
  requires: ['inventory', 'pxe-modes'],
  commandLine: { liveInstaller: LiveInstaller },
  entities: [LiveImageEntity, LiveKernelEntity],
  // 2: live_kernels, whether each image's kernel is signed (a new table: no migration step).
  schemaVersion: 2,
  config: Type.Object(
    {
      /** Where live images (ogLive-* directories, the ogLive default link) are found. */
      directory: Type.String({ default: 'tftpboot', path: true }),
      /** An OpenGnsys ogliveinfo.json to list as well; default: <directory>/ogliveinfo.json. */
      info_file: Type.Optional(Type.String({ path: true })),
      /** The folder POST /live/install takes ISOs from (as oglivecli's download folder). */
      iso_dir: Type.String({ default: 'isos', path: true }),
    },
    { additionalProperties: false },
  ),
  register(ctx) {
    const catalog = ctx.make(LiveCatalog);
    ctx.provide(LiveCatalog, catalog);
    const signatures = ctx.make(KernelSignatures);
    ctx.provide(KernelSignatures, signatures);
    liveRoutes(ctx, catalog, ctx.use(Inventory), ctx.use(BootFiles), signatures);
    const installer = ctx.make(LiveInstaller);
    ctx.provide(LiveInstaller, installer);
    installRoutes(ctx, installer);
    // Each start hashes every installed image once, in the background: the boot plugin asks
    // the same check (cached by size and mtime) before it serves a file.
    ctx.onStart(async () => {
      const swept = await installer.sweep();
      if (swept.length > 0) ctx.log.warn({ removed: swept }, 'work folders of interrupted live image installs removed');
      void catalog.checkAll().then(
        (refused) => {
          for (const reason of refused) ctx.log.warn(`live image not served: ${reason}`);
        },
        (error: Error) => ctx.log.warn({ err: error }, `live images not checked: ${error.message}`),
      );
    });
  },
});
