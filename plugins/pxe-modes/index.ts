import { definePlugin } from 'ogserve';
import { Inventory } from '../inventory';
import { replicateBootFiles } from './replication';
import { modeRoutes } from './routes';
import { SavedClientFiles } from './saved-clients';
import { PxeModesConfig } from './schemas';
import { BootFiles, UnknownModeError } from './service';
import { logSetup } from './setup-log';
import { Templates } from './templates';

export { BootFiles, UnknownModeError } from './service';
export { macOfBootFile } from './file-names';
export type { TemplateVariables } from './templates';

export default definePlugin({
  name: 'pxe-modes',
  requires: ['inventory'],
  config: PxeModesConfig,
  // A backup holds each client's boot files, restored where this site's config puts them.
  backup: { folders: (config) => ({ bios: config.bios_dir, uefi: config.uefi_dir }) },
  register(ctx) {
    const inventory = ctx.use(Inventory);
    const { config } = ctx;
    const templates = ctx.make(Templates);
    const bootFiles = ctx.make(BootFiles);
    ctx.provide(BootFiles, bootFiles);
    replicateBootFiles(ctx.cluster, bootFiles, ctx.log);
    ctx.onStart(async () => {
      await logSetup(ctx.log, bootFiles.server, templates, config);
      // A kill between a change's files and its record (POST /mode, an import, a delete)
      // leaves files the records do not name: put them right before anything is served.
      // A folder that cannot be read is logged; the rest of the service still starts.
      await bootFiles
        .reconcile()
        .catch((error: Error) => ctx.log.error({ err: error }, `boot files not checked against the records: ${error.message}`));
    });
    modeRoutes(ctx, bootFiles, inventory);

    // A client saved with a mode that has no template would be left without boot files.
    ctx.events.hook('client.check', async ({ boot }) => {
      if (boot !== undefined && !(await bootFiles.modes()).includes(boot)) throw new UnknownModeError(boot, 'boot');
    });
    // Under the lock of POST /mode: a save racing it must not leave the other mode's files.
    // A batch (a cascade, a delete of several clients) is one sweep of the folders, which
    // also takes whatever an earlier crash left.
    ctx.events.on('clients.removed', (clients) =>
      bootFiles.exclusive(async () => {
        if (clients.length === 1) await bootFiles.deleteFor(clients[0]!);
        else await bootFiles.deleteAll(clients);
      }),
    );
    const savedClients = ctx.make(SavedClientFiles);
    ctx.events.on('client.saved', (saved) => savedClients.write(saved.id), 'write the boot files');
  },
});
