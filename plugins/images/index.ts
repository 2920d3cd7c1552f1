import { Type } from '@sinclair/typebox';
import { type Clock, Counter, Gauge, Port, SystemClock, definePlugin, electedEvery } from 'ogserve';
import { AgentCommands, AgentLink, SoftwareInventory } from '../agents';
import { Inventory } from '../inventory';
import { TransferSlots } from '../transfers';
import { captureHandler, restoreHandler } from './capture';
import { ImagesClock } from './clock';
import { ImageCommands, RestoreSettings } from './commands';
import { CreatesUnderWay } from './creates';
import { ImageEntity } from './entities/image';
import { ImageScopeEntity } from './entities/image-scope';
import { ImageTrashEntity } from './entities/image-trash';
import { ImageVersionEntity } from './entities/image-version';
import { ImageTrashCan, TrashSettings } from './life/trash';
import { ImageVersions, VersionSettings } from './life/versions';
import { CheckerSettings, ImageChecker } from './integrity/checker';
import { FileHasher } from './integrity/hasher';
import { PendingCreates } from './pending';
import { createRoutes } from './routes/create';
import { holderRoutes } from './routes/holders';
import { integrityRoutes } from './routes/integrity';
import { lifeRoutes } from './routes/life';
import { pullRoutes } from './routes/pull';
import { repositoryRoutes } from './routes/repository';
import { ShareKeeper } from './share/keeper';
import { ImagePuller, PullSettings } from './pull/puller';
import { imagesImport } from './import-part';
import { listRoutes } from './routes/list';
import { recordRoutes } from './routes/records';
import { RestoreMethods } from './restore-methods';
import { restoreRoutes } from './routes/restore';
import { ImageRunLog } from './run-log';
import { fileRoutes } from './serve/files-route';
import { PcTransfers } from './serve/pc-transfers';
import type { ServedRecord } from './serve/served-files';
import { ImageStore } from './store';

/** Restore types other plugins carry out (the multicast plugin's MULTICAST): `ctx.use(RestoreMethods).add(...)`. */
export {
  RestoreMethods,
  type MethodRestore,
  type PreparedMethodRestore,
  type RestoreMethod,
  type RestoredImage,
} from './restore-methods';
export type { RestoreParams } from './commands';
export { ImageStore, type ImageRow } from './store';
export { ImagesClock } from './clock';
export { FileHasher, type FileHash } from './integrity/hasher';
export { reprDigest } from './serve/served-files';
export type { ImageState } from './entities/image';

/**
 * Its config section, `repository`: the name the reference's ogserver.json and sites' files
 * already give it. Image files live in `directory` (relative: in the state directory).
 */
export const ImagesConfig = Type.Object(
  {
    directory: Type.String({ default: 'images', path: true }),
    /** Image file transfers at once on GET /images/files (PCs restoring over HTTP, other sites' pulls); beyond, 503 with Retry-After. */
    max_transfers: Type.Integer({ default: 100, minimum: 1 }),
    /** Seconds an image transfer may go without the reader taking a byte before it is cut. */
    stall_s: Type.Number({ default: 30, exclusiveMinimum: 0, maximum: 3600 }),
    /** Networks (CIDR, or single addresses) image files are served to; empty = every address. */
    allow: Type.Array(Type.String({ minLength: 1 }), { default: [], maxItems: 256 }),
    /** Hours between checks of every image file against its record (sha256), by one instance; 0: none but POST /image/check. */
    check_every_h: Type.Number({ default: 24, minimum: 0, maximum: 8760 }),
    /** Days a deleted image (record and files) stays in the trash for POST /image/recover; 0: its files go at once. */
    trash_days: Type.Number({ default: 7, minimum: 0, maximum: 3650 }),
    /** Versions of an image kept when it is created again (`<name>@v<revision>.img`, restorable by version); 0: none. */
    keep_versions: Type.Integer({ default: 0, minimum: 0, maximum: 100 }),
    /** Bytes per second an image pull from another site may read at most (a site's link kept for others); 0: no limit. */
    pull_max_bytes_per_s: Type.Integer({ default: 0, minimum: 0 }),
    /**
     * Restore type HTTP taken by POST /image/restore: the agent runs the ogLive's restoreImageCustom
     * hook (templates/oglive), which fetches /images/files. Off until a site has put the hook in place.
     */
    http_restore: Type.Boolean({ default: false }),
    /** The Samba share the agents create and restore images on (`ogimages`), kept by ogserve: off by default. */
    share: Type.Object(
      {
        enabled: Type.Boolean({ default: false }),
        /** The share's name: the agents mount //<repository>/ogimages. */
        name: Type.String({ default: 'ogimages', pattern: '^[A-Za-z0-9_.-]{1,64}$' }),
        /** The file ogserve writes the share's section to; smb.conf includes it (`include = <file>`). */
        config_file: Type.String({ default: '/etc/samba/ogserve-ogimages.conf', path: true }),
        /** Samba's main configuration (smbcontrol and smbpasswd are given it). */
        smb_conf: Type.String({ default: '/etc/samba/smb.conf', path: true }),
        /** The Samba user and password the agents log in with (their own config's samba.user, samba.pass). */
        user: Type.String({ default: 'opengnsys', pattern: '^[A-Za-z0-9_.-]{1,64}$' }),
        password: Type.String({ default: 'og' }),
        /** Where ogserve reaches smbd to check the share as the agents see it. */
        host: Type.String({ default: '127.0.0.1' }),
        port: Port({ default: 445 }),
        /** The Unix user files are written as; '' = the one ogserve runs as (it hashes, moves and serves them). */
        force_user: Type.String({ default: '', pattern: '^([A-Za-z0-9_.-]{1,64})?$' }),
        /** Seconds between checks of the share (smbd answering, the section as written). */
        check_s: Type.Integer({ default: 60, minimum: 5, maximum: 86400 }),
      },
      { additionalProperties: false, default: {} },
    ),
  },
  { additionalProperties: false, default: {} },
);

/**
 * Disk images: their records, the repository directory's files, and image creation and
 * restoration relayed to the agents.
 */
export default definePlugin({
  name: 'images',
  section: 'repository',
  requires: ['inventory', 'agents', 'transfers'],
  import: { images: imagesImport },
  commandLine: { imagePuller: ImagePuller },
  // 2: each image's sha256, file state, damage and last check (columns with defaults: the schema
  // update adds them); the kept versions and the trash (new tables).
  schemaVersion: 2,
  entities: [ImageEntity, ImageScopeEntity, ImageVersionEntity, ImageTrashEntity],
  config: ImagesConfig,
  register(ctx) {
    const { config } = ctx;
    const inventory = ctx.use(Inventory);
    const link = ctx.use(AgentLink);
    const store = ctx.make(ImageStore);
    const pending = ctx.make(PendingCreates);
    ctx.provide(ImageStore, store);
    const methods = new RestoreMethods();
    ctx.provide(RestoreMethods, methods);
    const software = ctx.use(SoftwareInventory);
    const { directory } = config;
    const clock = ctx.service<Clock>(ImagesClock, () => new SystemClock());
    const creates = new CreatesUnderWay();
    ctx.service(CreatesUnderWay, () => creates);
    link.observers.observe(async (dispatch) => {
      creates.observed(dispatch);
      return undefined;
    });
    ctx.onStop(() => creates.stop());
    const hasher = new FileHasher();
    ctx.service(FileHasher, () => hasher);
    ctx.service(CheckerSettings, () => ({ directory, beingWritten: (name: string) => creates.has(name) }));
    const checker = ctx.make(ImageChecker);
    ctx.service(VersionSettings, () => ({ directory, keepVersions: config.keep_versions }));
    ctx.service(TrashSettings, () => ({ directory, trashDays: config.trash_days }));
    const versions = ctx.make(ImageVersions);
    const trash = ctx.make(ImageTrashCan);
    creates.onEnd((ip) =>
      versions
        .ended(ip)
        .catch((error: Error) => ctx.log.error({ err: error, client: ip }, `kept image version not put back: ${error.message}`)),
    );
    const runs = ctx.make(ImageRunLog);
    runs.listen(ctx.events);
    ctx.service(RestoreSettings, () => ({ http: config.http_restore }));
    const commands = ctx.make(ImageCommands);
    commands.define(ctx.use(AgentCommands), {
      create: captureHandler({
        store,
        inventory,
        software,
        pending,
        checker,
        versions,
        directory,
        announce: (image) => {
          runs.stored(image.client, image.image);
          void ctx.events.emit('image.created', image);
        },
      }),
      restore: restoreHandler(store, inventory, methods, (image) => void ctx.events.emit('image.restored', image)),
    });
    listRoutes(ctx, store, inventory, directory);
    holderRoutes(ctx, store, inventory);
    createRoutes(ctx, commands, link, pending);
    recordRoutes(ctx, store, inventory, trash);
    ctx.service(PullSettings, () => ({ directory, maxBytesPerS: config.pull_max_bytes_per_s }));
    const puller = ctx.make(ImagePuller);
    ctx.provide(ImagePuller, puller);
    pullRoutes(ctx, puller);
    lifeRoutes(ctx, store, versions, trash);
    restoreRoutes(ctx, commands, inventory, link, methods, directory);

    // Image files over HTTP, each PC's bytes counted as they go.
    const slots = new TransferSlots(config.max_transfers, config.stall_s * 1000);
    const transfers = new PcTransfers(clock);
    ctx.events.on(
      'job.created',
      ({ job, kind, clients }) => {
        if (kind === 'image/restore') transfers.jobStarted(job, clients);
      },
      "tie restores' transfers to their job",
    );
    const sent = new Counter({ name: 'ogserve_image_bytes_total', help: 'Bytes of image files sent', registers: [ctx.metrics] });
    new Gauge({
      name: 'ogserve_image_transfers_active',
      help: 'Image file transfers under way',
      registers: [ctx.metrics],
      collect() {
        this.set(slots.inFlight);
      },
    });
    const lookup = async ({ name, version }: { name: string; version?: number }): Promise<ServedRecord | undefined> => {
      const image = await store.named(name);
      if (!image) return undefined;
      if (version === undefined)
        return { image: image.id, name, sha256: image.sha256, size: image.size, state: image.state, damage: image.damage };
      const kept = await versions.byVersion(image.id, version);
      return kept
        ? { image: image.id, name, sha256: kept.sha256, size: BigInt(kept.size), state: kept.state, damage: kept.damage }
        : undefined;
    };
    fileRoutes(ctx, {
      inventory,
      directory,
      slots,
      lookup,
      beingWritten: (name) => creates.has(name),
      transfers,
      allow: config.allow,
      bytesSent: (bytes) => sent.inc(bytes),
    });
    integrityRoutes(ctx, store, checker, transfers);

    // The ogimages share, kept in step by ogserve when asked: writable while a create is under way.
    const share = config.share.enabled
      ? new ShareKeeper({ ...config.share, port: Number(config.share.port) }, directory, ctx.events, ctx.log)
      : undefined;
    if (share) {
      creates.onChange((count) => share.creates(count));
      ctx.onStart(() => share.start());
      ctx.onStop(() => share.stop());
    } else {
      ctx.onStart(() =>
        ctx.log.warn(
          'repository.share.enabled is off: ogserve keeps no ogimages share; agents create and restore images on the share their repository address serves',
        ),
      );
    }
    repositoryRoutes(ctx, { directory, store, trash, share, httpRestore: config.http_restore, activeTransfers: () => slots.inFlight });

    // A create's hashing cut short by a stop: its image is hashed now (the file is whole: the agent had answered).
    ctx.onStart(() => {
      void (async () => {
        for (const image of (await store.list()).filter((i) => i.state === 'hashing')) await checker.check(image);
      })().catch((error: Error) => ctx.log.error({ err: error }, `images left hashing not hashed: ${error.message}`));
    });

    // Every image file against its record, by one instance, every check_every_h hours (the first a period after the start).
    if (config.check_every_h > 0) {
      let started = false;
      const stop = electedEvery(ctx.cluster, {
        role: 'images-check',
        everyMs: config.check_every_h * 3600 * 1000,
        clock,
        log: ctx.log,
        failed: 'images not checked',
        run: async () => {
          if (started) await checker.checkAll(await versionsToCheck());
          started = true;
        },
      });
      ctx.onStop(stop);
    }
    const versionsToCheck = async () => {
      const names = new Map((await store.list()).map((i) => [i.id, i.name]));
      return (await versions.all()).flatMap((v) => {
        const name = names.get(v.imageId);
        if (name === undefined) return [];
        const record = { id: v.imageId, name, size: BigInt(v.size), sha256: v.sha256, state: v.state, checksum: v.checksum };
        const save = (found: { state: typeof v.state; damage: string; sha256: string }) =>
          versions.setIntegrity(v.id, { ...found, checkedAt: Math.floor(clock.now() / 1000) });
        return [{ record, version: v.version, save }];
      });
    };

    // The trash: what was deleted more than trash_days ago goes for good, by one instance, hourly.
    if (config.trash_days > 0) {
      const stopPurge = electedEvery(ctx.cluster, {
        role: 'images-trash',
        everyMs: 3600 * 1000,
        clock,
        log: ctx.log,
        failed: 'the image trash not emptied',
        run: async () => void (await trash.purge()),
      });
      ctx.onStop(stopPurge);
    }
  },
});
