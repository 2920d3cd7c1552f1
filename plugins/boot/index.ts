import path from 'node:path';
import { type Clock, StartupError, SystemClock, definePlugin } from 'ogserve';
import { Inventory } from '../inventory';
import { LiveCatalog } from '../live';
import { BootFiles } from '../pxe-modes';
import { TransferSlots } from '../transfers';
import { BootClock } from './clock';
import { BootStageEntity } from './entities/boot-stage';
import { BootFolders } from './folders';
import { BootLoaders } from './loaders';
import { NextBootEntity } from './entities/next-boot';
import { fileRoutes } from './file-routes';
import { BootMetrics } from './metrics';
import { RefusalLog } from './refusal-log';
import { oneShotBoots } from './next-routes';
import { publicUrl } from './public-url';
import { BootConfig } from './schemas';
import { scriptRoutes } from './script-routes';
import { lastStagesRoute } from './last-stages-route';
import { IpxeTemplates } from './templates';
import { BootTimeline } from './timeline';
import { bootsTimeline } from './timeline-entries';
import { timelineRoutes } from './timeline-routes';
import { discoverMode, UnknownPcs } from './unknown-pcs';

export type { BootStage } from './events';
export { stageOfFile } from './events';
export { BootClock } from './clock';
export { UnknownPcs, type DiscoveryBoot, type DiscoveryHandler, type UnknownPc } from './unknown-pcs';
export { BootFolders, type BootFolder } from './folders';
export { LOADERS, type LoaderFirmware, type LoaderSpec } from './loaders';
export { BootConfig } from './schemas';
/** The byte path's allow lists (transfers'), for the tftp plugin, which requires boot. */
export { allowList } from '../transfers';
export { PerAddressLimit } from './rate-limit';

export default definePlugin({
  name: 'boot',
  requires: ['inventory', 'pxe-modes', 'live', 'transfers'],
  commandLine: { bootLoaders: BootLoaders },
  config: BootConfig,
  schemaVersion: 1,
  entities: [BootStageEntity, NextBootEntity],
  register(ctx) {
    const { config } = ctx;
    const inventory = ctx.use(Inventory);
    const bootFiles = ctx.use(BootFiles);
    const templates = new IpxeTemplates(config.templates_dir);
    const url = publicUrl(config.public_url, ctx.settings.rest);
    const slots = new TransferSlots(config.max_transfers, config.stall_s * 1000);
    const metrics = new BootMetrics(ctx.metrics, () => slots.inFlight);
    const refusals = new RefusalLog(ctx.log, config.refusals_log_s * 1000);
    ctx.onStop(() => refusals.flush());
    // PCs nobody registered: their network's mode, or discovery by the plugin that serves it (enrol).
    const unknown = new UnknownPcs(config.unknown_client);
    ctx.provide(UnknownPcs, unknown);
    scriptRoutes(ctx, { inventory, bootFiles, templates, metrics, refusals, unknown, filesUrl: `${url}/boot/files` });
    const catalog = ctx.use(LiveCatalog);
    const loaders = new BootLoaders(config.loaders_dir, config.loaders_served_dir, ctx.log);
    ctx.provide(BootLoaders, loaders);
    const folders = [
      { dir: catalog.directory, refusal: (file: string) => catalog.refusal(file) },
      ...(config.extra_dir ? [{ dir: config.extra_dir }] : []),
      { dir: loaders.folder },
    ];
    fileRoutes(ctx, { inventory, folders, slots, metrics, refusals });
    ctx.provide(BootFolders, new BootFolders(folders));
    oneShotBoots(ctx, bootFiles, inventory);

    // The timeline: each boot's stages from the events above, and the agent coming up after it.
    const clock = ctx.service<Clock>(BootClock, () => new SystemClock());
    const timeline = new BootTimeline(ctx.db, inventory, clock, ctx.log, config.timeline_boots);
    ctx.onStart(() => (ctx.cluster.shared ? undefined : timeline.start()));
    ctx.events.on(
      'boot.stage',
      ({ client, stage, bytes, ms, cut_short }) => void timeline.record(client, stage, { bytes, ms, cut_short }),
      'keep the boot timeline',
    );
    ctx.events.on(
      'client.state',
      ({ client, old, new: state }) => void timeline.stateChanged(client, old, state),
      'keep the boot timeline',
    );
    timelineRoutes(ctx, inventory);
    bootsTimeline(ctx.events, ctx.db);
    lastStagesRoute(ctx, clock);

    // Every mode GET /mode offers should boot over iPXE too: one without a template is said at start.
    ctx.onStart(async () => {
      if (unknown.discovers && !unknown.handled)
        throw new StartupError(
          `boot.unknown_client says '${discoverMode}', but no enabled plugin discovers PCs: add "enrol" to plugins (or set another mode)`,
        );
      const found = await loaders.start();
      const absent = found.filter((l) => !l.source).map((l) => `${l.name} (${l.debian[0]!.package})`);
      ctx.log[absent.length > 0 ? 'warn' : 'info'](
        { served: found.filter((l) => l.source).map((l) => l.name), missing: absent, from: config.loaders_dir ?? "Debian's packages" },
        absent.length > 0
          ? `first stages not found: ${absent.join(', ')} (ogserve doctor boot says which PCs can boot)`
          : 'first stages found',
      );
      const missing: string[] = [];
      for (const mode of await bootFiles.modes()) if (!(await templates.has(mode))) missing.push(mode);
      if (unknown.discovers && !(await templates.has(discoverMode))) missing.push(discoverMode);
      if (missing.length > 0)
        ctx.log.warn(
          { modes: missing, templates_dir: config.templates_dir },
          'boot modes without an iPXE template: their PCs get a script saying so',
        );
      ctx.log.info({ public_url: url, files: folders.map((f) => path.resolve(f.dir)) }, 'iPXE scripts and boot files served');
    });
    ctx.onStop(() => loaders.stop());
  },
});
