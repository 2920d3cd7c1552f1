import type dgram from 'node:dgram';
import type net from 'node:net';
import type { TObject, Static } from '@sinclair/typebox';
import type { InjectionToken } from 'tsyringe';
import type { PermissionDeclaration } from './access';
import type { CoreSettings } from './config-schema';
import type { PluginCluster } from './cluster';
import type { Database } from './database';
import type { PluginEvents } from './events';
import type { Registry } from './metrics';
import type { Listening, ListenSpec } from './listen';
import type { Injectable } from './injection';
import type { Logger } from './log';
import type { Migration, MigrationContext } from './migrations';
import type { PluginHooks } from './http/hooks';
import type { Route, RouteRegistrar } from './http/routes';
import type { StaticOptions } from './http/static';

/**
 * What a plugin's entry module exports (default export or `plugin`).
 * This is the whole contract third-party plugins rely on; keep it small.
 */
export interface PluginDefinition<C extends TObject = TObject> {
  /** Unique name; also the name of its config section (`config.<name>`) unless `section` says another. */
  name: string;
  /**
   * The config section it reads, when not its name: a plugin that took a section over from
   * core keeps the name sites already write (images reads `repository`).
   */
  section?: string;
  /** Plugins whose services this one uses; they are registered first. */
  requires?: string[];
  /** MikroORM entity schemas this plugin owns. */
  entities?: unknown[];
  /** TypeBox schema of its config section, with defaults; validated at startup. */
  config?: C;
  /** Version of this plugin's tables (default 1); startup refuses a database that is newer. */
  schemaVersion?: number;
  /**
   * Steps that upgrade a database written at an older `schemaVersion`, in increasing
   * version order; each runs in a transaction with the new version record.
   */
  migrations?: Migration[];
  /**
   * Rows this plugin's tables start with, written once: when its tables are created, in the
   * transaction that records its schema version (a database that already had them is left alone).
   */
  seed?(ctx: SeedContext): Promise<void>;
  /**
   * Permissions this plugin's routes (or other plugins' routes) may name, besides core's
   * `read`, `operate` and `admin`: each with the roles that hold it, or none (given to a
   * token explicitly). A name another plugin declares too stops the start.
   */
  permissions?: Record<string, PermissionDeclaration>;
  register(ctx: PluginContext<Static<C>>): void | Promise<void>;
  /** What this plugin gives `ogserve import-opengnsys`: its own entry of ImportParts. */
  import?: Partial<ImportParts>;
  /**
   * What `ogserve backup` and `restore` must know of this plugin besides its tables: that they
   * hold the state of running processes, not of the site (left out), and the folders of files
   * a backup holds, by the name of their area in the backup (`bios`), read from its config section.
   */
  backup?: { transient?: boolean; folders?(config: Static<C>): Record<string, string> };
  /** What this plugin gives the other subcommands of `ogserve` (`user`, `live`...): its own entries of CommandLineParts. */
  commandLine?: Partial<CommandLineParts>;
}

/**
 * The tools outside the server reach a plugin only through what its definition gives them.
 * A plugin declares its entries by declaration merging, as EventMap's, so each tool is typed
 * by the plugin's own shapes: `declare module 'ogserve' { interface ImportParts { x: XImport } }`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging in plugins
export interface ImportParts {}
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging in plugins
export interface CommandLineParts {}

export interface PluginContext<C = unknown> {
  readonly name: string;
  /** This plugin's validated config section. */
  readonly config: C;
  /** Core settings (rest, database, log, plugins). */
  readonly settings: CoreSettings;
  readonly router: RouteRegistrar;
  /**
   * The enabled plugins' definitions, in load order: a plugin may read fields another plugin
   * declares on PluginDefinition by declaration merging (the console plugin's `console`).
   */
  readonly plugins: readonly PluginDefinition[];
  /** Every route of every plugin and of core, as registered so far (read it once all are: from onStart or a handler). */
  readonly routes: readonly Readonly<Route>[];
  /**
   * Make an `@injectable()` class once in the plugin's own child container (a second call
   * answers the same instance, and classes made later receive it): its constructor takes what
   * that container holds: `Database`, the tokens of core/injection (`PluginConfig`,
   * `PluginLog`, `PluginEventBus`, `PluginClusterView`, `CoreConfig`, `MetricsRegistry`), the
   * services of the plugins in `requires`, what `service` registered and the classes made so far. A parameter nothing there answers stops the start with one line naming
   * the plugin, the class and the service ("plugin 'x' cannot make 'Foo': it uses service
   * 'Bar', which no enabled plugin provides"). A class another plugin provides is its instance
   * (as `use`), and one the containers the app was given register is theirs, as for `service`.
   */
  make<T>(target: Injectable<T>): T;
  /**
   * A service the plugin uses that an embedder or a test may replace (a clock, a sender):
   * what is registered for `token` in the containers the app was given wins; otherwise
   * `makeDefault()` is made and registered in the plugin's own container.
   */
  service<T>(token: InjectionToken<T>, makeDefault: () => T): T;
  readonly db: Database;
  readonly log: Logger;
  /** The event bus: announce what happened, hear what other plugins announce. */
  readonly events: PluginEvents;
  /**
   * The other instances sharing this database, if any: messages by topic, who is alive, and
   * roles only one instance holds at a time (`elected`). Alone, every role is held.
   */
  readonly cluster: PluginCluster;
  /** The Prometheus registry GET /metrics serves: add this plugin's metrics with `registers: [ctx.metrics]`. */
  readonly metrics: Registry;
  /**
   * Where the plugin joins the handling of requests: `authenticate` and `identify` (keys other
   * than `rest.api_token`, session cookies), and, on the plugin's own routes unless given
   * `{ global: true }`: `onRequest` (a routed request before its body is read), `preHandler`
   * (a check before the handler), `onSend` (what the handler answered, before it is sent),
   * `onResponse` (each request once answered or cut off: the audit trail, the request
   * metrics) and `onError` (each refusal and failure as it is answered).
   */
  readonly hooks: PluginHooks;
  /** Export a service for the plugins that declare this one in `requires` (`ctx.provide(Foo, ctx.make(Foo))`). */
  provide<T>(token: InjectionToken<T>, value: T): void;
  /** Resolve a service exported by this plugin or by one it requires. */
  use<T>(token: InjectionToken<T>): T;
  /**
   * Open a TCP server or bind a UDP socket where the config says (call it from `onStart`).
   * A failure stops the start with one line naming `ipKey` or `portKey`, the address and the
   * port, and everything opened so far is closed. The start log lists it under `name`.
   */
  listen(server: net.Server | dgram.Socket, spec: ListenSpec): Promise<Listening>;
  /**
   * Serve the files under `dir` at `prefix` (GET and HEAD, without `Authorization`): pages
   * and scripts only, never data.
   */
  files(prefix: string, dir: string, options?: StaticOptions): void;
  /** Run after every plugin registered (listeners, timers). */
  onStart(fn: () => void | Promise<void>): void;
  /** Run at shutdown, in reverse plugin order. */
  onStop(fn: () => void | Promise<void>): void;
}

/** What `seed` gets: its transaction, and core settings (the server's own address comes from `rest.ip`). */
export interface SeedContext extends MigrationContext {
  readonly settings: CoreSettings;
}

/** Identity helper that gives plugin authors type checking of their definition. */
export function definePlugin<C extends TObject>(definition: PluginDefinition<C>): PluginDefinition<C> {
  return definition;
}
