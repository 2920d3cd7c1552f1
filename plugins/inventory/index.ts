import type { IncomingMessage } from 'node:http';
import { Type } from '@sinclair/typebox';
import { ScopesAnswer } from './schemas';
import { ErrorCode, HttpError, definePlugin } from 'ogserve';
import { seedDefaultRepository } from './default-repository';
import { CenterEntity } from './entities/center';
import { ClientEntity } from './entities/client';
import { ComputerFolderEntity, RoomFolderEntity } from './entities/folder';
import { PartitionEntity } from './entities/partition';
import { RepositoryAddressEntity, RepositoryEntity } from './entities/repository';
import { RoomEntity } from './entities/room';
import { ServerEntity } from './entities/server';
import { addressRoutes } from './routes/addresses';
import { centerRoutes } from './routes/centers';
import { clientImportRoute } from './routes/client-import';
import { clientImportDhcpdRoute } from './routes/client-import-dhcpd';
import { clientRoutes } from './routes/clients';
import { folderRoutes } from './routes/folders';
import { repositoryRoutes } from './routes/repositories';
import { roomRoutes } from './routes/rooms';
import { serverRoutes } from './routes/servers';
import { describeChange } from './change-events';
import { ClientRules } from './client-rules';
import { DhcpdImport } from './dhcpd-import';
import { inventoryImport } from './import-part';
import { ImportedClients } from './imported-clients';
import { ClientBatch } from './client-batch';
import { type Watched, WriteChanges } from './write-changes';
import { ScopeCache } from './scope-cache';
import { Inventory, type InventoryChange } from './service';
import { FleetScope } from './fleet-scope';
import { buildScopes } from './scopes';
import { SiteTime } from './site-time';
import { SiteAnswer } from './schemas';

export { Inventory } from './service';
export {
  SiteTime,
  isTimeZone,
  isoWithOffset,
  localDate,
  localInstant,
  nextDate,
  offsetMinutes,
  systemTimeZone,
  wallClock,
  weekdayOf,
  weekdays,
  type Weekday,
} from './site-time';
export { ClientBatch, type BatchRefusal } from './client-batch';
/** Other plugins' tables point at clients, rooms and centers (foreign keys that cascade). */
export { CenterEntity, ClientEntity, RoomEntity };
export type { Center } from './entities/center';
export type { Client } from './entities/client';
export type { Room } from './entities/room';
export { FleetScope } from './fleet-scope';
export { Created, Done } from './schemas';
export type { ClientView } from './client-view';
export type { DiskEntry, RepositoryView, ScopeRef } from './service';
export { COMPUTER_FOLDER_MARKER, parseFolderId } from './folder-ids';
export { repositoryAddressFor } from './repository-address';
export type { InventoryChange, InventoryKind } from './change-events';

export default definePlugin({
  name: 'inventory',
  schemaVersion: 1,
  import: { inventory: inventoryImport },
  commandLine: { dhcpdImport: DhcpdImport },
  entities: [
    CenterEntity,
    RoomFolderEntity,
    RoomEntity,
    ComputerFolderEntity,
    RepositoryEntity,
    RepositoryAddressEntity,
    ServerEntity,
    ClientEntity,
    PartitionEntity,
  ],
  seed: seedDefaultRepository,
  config: Type.Object(
    {
      /** Boot mode of a client added without one: it boots the live image. */
      default_boot: Type.String({ default: 'ogLive', minLength: 1 }),
      /** Live image directory of a client added without one. */
      default_livedir: Type.String({ default: 'ogLive', minLength: 1 }),
      /** How long GET /scopes may be served from memory when nothing was written through this server. */
      scopes_cache_ms: Type.Integer({ default: 2000, minimum: 0 }),
      /**
       * Unit of the sizes GET /client/setup answers: bytes (the spec), or KiB as the reference
       * answered and as ogCP reads them (its setup form shows size / 1024 as MB).
       */
      setup_size_unit: Type.Union([Type.Literal('bytes'), Type.Literal('KiB')], { default: 'bytes' }),
      /** The most rows POST /client/import (or hosts POST /client/import-dhcpd) takes in one file: checked, and stored, in one request. */
      import_max_rows: Type.Integer({ default: 5000, minimum: 1 }),
    },
    { additionalProperties: false },
  ),
  register(ctx) {
    const inventory = ctx.make(Inventory);
    ctx.provide(Inventory, inventory);
    const site = new SiteTime(ctx.settings.site.time_zone);
    ctx.provide(SiteTime, site);
    ctx.router.get(
      '/site',
      {
        permission: 'read',
        scoped: 'open',
        bodyPolicy: 'ignored',
        log: false,
        response: SiteAnswer,
        summary: "The site's time zone: the one clock of schedules, power calendars and the console",
      },
      async () => ({ time_zone: site.zone, source: site.source }),
    );
    const scopes = ctx.make(ScopeCache);
    // Another instance wrote: what it changed is read again here, at once.
    ctx.cluster.on<InventoryChange>('inventory.changed', (change) => {
      inventory.apply(change, true);
      scopes.invalidate(!change.tables);
    });
    ctx.cluster.onReconnect(() => {
      inventory.apply({ tables: true }, true);
      scopes.invalidate();
    });
    // Every inventory route that is not a read may change the tree, and is announced, with
    // what it changed field by field for the audit log. Reading the records around a write
    // costs about 0.4 ms of CPU: done only where the audit plugin is on to keep them.
    const changes = new WriteChanges(ctx.db, ctx.events, () => ctx.events.heard('audit.details'));
    // Before a write, the records it is about to change; once it succeeded, before its answer,
    // the tree read again and what changed announced; after a failed one, the tree read again.
    const watching = new WeakMap<IncomingMessage, Watched | undefined>();
    const treeChanged = (path: string): void => {
      // Client routes write clients alone and tell the index which; the others may change
      // the tree and what many clients show (a room's network, a deleted folder or repository).
      const clientsOnly = path.startsWith('/client/');
      scopes.invalidate(clientsOnly);
      if (!clientsOnly) inventory.tablesChanged();
    };
    ctx.hooks.preHandler(async ({ route, req, body, log }) => {
      if (route.method !== 'GET') watching.set(req, await changes.before(route.method, route.path, body, log));
    });
    ctx.hooks.onSend(async ({ route, req, body, log }, result) => {
      if (route.method === 'GET') return;
      treeChanged(route.path);
      const described = describeChange(route.method, route.path, body, result);
      if (described) void ctx.events.emit(described.event, described.change, log);
      const watched = watching.get(req);
      if (watched) await changes.after(watched, result, req, log);
    });
    ctx.hooks.onResponse(({ route, status }) => {
      if (route && route.method !== 'GET' && (status === undefined || status >= 400)) treeChanged(route.path);
    });
    centerRoutes(ctx, inventory);
    roomRoutes(ctx, inventory);
    folderRoutes(ctx, inventory);
    const rules = new ClientRules(ctx.config, ctx.log);
    clientRoutes(ctx, inventory, rules);
    const imported = new ImportedClients(ctx.db, inventory, rules, ctx.events);
    ctx.provide(ClientBatch, new ClientBatch(ctx.db, inventory, rules, imported));
    clientImportRoute(ctx, imported, changes);
    const dhcpd = new DhcpdImport(ctx.db, imported, ctx.config.import_max_rows);
    ctx.provide(DhcpdImport, dhcpd);
    clientImportDhcpdRoute(ctx, dhcpd, changes);
    repositoryRoutes(ctx);
    serverRoutes(ctx);
    addressRoutes(ctx);
    const tree = {
      permission: 'read',
      bodyPolicy: 'forbidden',
      log: false,
      scoped: 'filtered',
      response: ScopesAnswer,
      summary: 'The tree of centers, rooms, folders and computers',
    } as const;
    ctx.router.get('/scopes', tree, async ({ access }) => {
      const scope = access?.scope;
      if (!scope) return scopes.get();
      // Built for the token, not cached: limited tokens are few and their trees differ.
      if (scope instanceof FleetScope) return { scope: scope.prune(await buildScopes(ctx.db)) };
      throw new HttpError(403, ErrorCode.forbidden, `GET /scopes cannot be cut to ${scope.description}`);
    });
  },
});
