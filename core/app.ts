import 'reflect-metadata';
import type dgram from 'node:dgram';
import type http from 'node:http';
import net from 'node:net';
import type { DestinationStream } from 'pino';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { Cluster } from './cluster';
import type { CoreSettings } from './config-schema';
import { openDatabase, type Database } from './database';
import { EventBus } from './events';
import { PluginServices } from './injection';
import { healthRoutes } from './health';
import { Permissions } from './access';
import { ServiceMetrics } from './metrics';
import { RequestHooks } from './http/hooks';
import { type Route, RouteTable } from './http/routes';
import { StaticMounts } from './http/static';
import { importPlugins, orderPlugins } from './loader';
import { type Listening, type ListenSpec, listen } from './listen';
import { createLogger, type Logger } from './log';
import { checkMigrationList, type MigrationContext, type PluginSchema } from './migrations';
import { RestListeners } from './rest-listeners';
import { type RestOptions, createRestServer } from './http/server';
import { versionRoute } from './version';
import type { PluginContext, PluginDefinition } from './plugin';
import type { SiteConfig } from './site-config';

export interface AppOptions {
  /** The site's configuration, as the program read it (cli/config's `Config`). */
  config: SiteConfig;
  /** Where log lines go; stdout by default. */
  logStream?: DestinationStream;
  /**
   * The container the app's own container is a child of. Embedders and tests register
   * replacements here (a clock, say) that plugins may resolve; the global one by default.
   */
  parentContainer?: DependencyContainer;
}

type Hook = () => void | Promise<void>;

/**
 * How long one plugin's stop may take once the requests in flight are done
 * (rest.shutdown_grace_s): the systemd unit allows 5 s after the grace before it kills.
 */
const pluginStopMs = 3000;

/** The kernel: config, database, plugins, REST listener. It knows no domain. */
export class App {
  private rest?: RestListeners;
  private readonly startHooks: Hook[] = [];
  private readonly stopHooks: { plugin: string; hook: Hook }[] = [];
  /** The TCP listeners opened so far (REST and the plugins'): a stop closes them all first. */
  private readonly tcpListeners: net.Server[] = [];
  private closing?: Promise<void>;
  private readonly statics = new StaticMounts();
  readonly events: EventBus;
  readonly cluster: Cluster;
  readonly metrics: ServiceMetrics;
  /** Every listener open and not yet closing: what GET /readyz reports. */
  private serving = false;

  private constructor(
    readonly config: SiteConfig,
    readonly log: Logger,
    readonly container: DependencyContainer,
    readonly plugins: PluginDefinition[],
    private readonly routes: RouteTable,
    private readonly permissions: Permissions,
    private db?: Database,
  ) {
    this.events = new EventBus(log);
    this.hooks = new RequestHooks(log);
    this.cluster = new Cluster(log);
    this.services = new PluginServices(container);
    this.metrics = new ServiceMetrics(this.events, this.cluster);
  }

  get settings(): CoreSettings {
    return this.config.core;
  }

  get database(): Database {
    if (!this.db) throw new Error('database not open');
    return this.db;
  }

  static async create(options: AppOptions): Promise<App> {
    const { config } = options;
    const log = createLogger(config.core.log.level, options.logStream);
    const definitions = orderPlugins((await importPlugins(config.core.plugins, config.baseDirOf('plugins'))).map((p) => p.definition));
    config.pluginsLoaded(definitions, log);
    const sections = new Map(definitions.map((d) => [d.name, d.config ? config.section(d.section ?? d.name, d.config) : {}]));
    const permissions = new Permissions();
    for (const d of definitions)
      for (const [name, declared] of Object.entries(d.permissions ?? {})) permissions.declare(d.name, name, declared);
    const container = (options.parentContainer ?? rootContainer).createChildContainer();
    const app = new App(config, log, container, definitions, new RouteTable(permissions), permissions);
    const entities = definitions.flatMap((d) => d.entities ?? []);
    const schemas: PluginSchema[] = definitions.map((d) => {
      const { seed } = d;
      return {
        name: d.name,
        version: d.schemaVersion ?? 1,
        migrations: d.migrations ?? [],
        seed: seed && ((ctx: MigrationContext) => seed({ ...ctx, settings: config.core })),
      };
    });
    schemas.forEach(checkMigrationList);
    app.db = await openDatabase(config.core.database, entities, schemas, log, config.stateDir.dir);
    versionRoute(app.routes.registrarFor('core'), app.database, definitions);
    healthRoutes(app.routes.registrarFor('core'), app.database, () => app.serving);
    try {
      for (const definition of definitions)
        await definition.register(app.contextFor(definition, sections.get(definition.name)) as PluginContext<never>);
    } catch (error) {
      await app.db.close();
      throw error;
    }
    return app;
  }

  /**
   * Start every plugin, then open the REST port (unless `rest` is false: requests then come
   * through `restServer`, as ogserve/testing's inject sends them). If anything fails (a port
   * taken, an address not on this machine), whatever was opened is closed again, database
   * included, and the error is passed on: a failed start leaves nothing running.
   */
  async listen(options: { rest?: boolean } = {}): Promise<void> {
    try {
      await this.cluster.open();
      for (const hook of this.startHooks) await hook();
      await this.cluster.startRoles();
      if (options.rest !== false) {
        this.rest = new RestListeners(this.settings.rest, this.log);
        await this.rest.open(this.restOptions(), (server, spec) => this.openListener(server, this.log, spec));
      }
      this.serving = true;
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  /** A REST server that listens nowhere: what a connection handed to it (`emit('connection')`) is answered by. */
  restServer(): http.Server {
    this.unlistened ??= createRestServer(this.restOptions());
    return this.unlistened;
  }

  private unlistened?: http.Server;

  private restOptions(): Omit<RestOptions, 'tls' | 'transport'> {
    const { rest } = this.settings;
    return {
      routes: this.routes.routes,
      token: this.config.apiToken(this.log),
      maxKeyFailures: rest.max_key_failures,
      maxRequestBytes: rest.max_request_bytes,
      maxResponseBytes: rest.max_response_bytes,
      db: this.database,
      maxJsonDepth: rest.max_json_depth,
      log: this.log,
      statics: this.statics.mounts,
      hooks: this.hooks,
      permissions: this.permissions,
      trustedProxies: rest.trusted_proxies,
    };
  }

  /** Every route registered, core's and the plugins' (the API document and the tests read it). */
  get routeTable(): readonly Route[] {
    return this.routes.routes;
  }

  restPort(): number {
    return this.rest?.port ?? 0;
  }

  /** The HTTPS port (rest.tls); 0 when there is none. */
  tlsPort(): number {
    return this.rest?.tlsPort ?? 0;
  }

  /** Read rest.tls's certificate and key again (SIGHUP). */
  reloadTls(): void {
    this.rest?.reloadTls();
  }

  /** Every listener opens here (core's and plugins'), so each is logged the same way, once. */
  private async openListener(server: net.Server | dgram.Socket, log: Logger, spec: ListenSpec): Promise<Listening> {
    const listening = await listen(server, spec);
    if (server instanceof net.Server) this.tcpListeners.push(server);
    log.info(
      { listener: spec.name, address: spec.ip, port: listening.port },
      `${spec.name} listening on ${spec.ip}:${listening.port}${spec.note ? `, ${spec.note}` : ''}`,
    );
    return listening;
  }

  /**
   * Graceful stop: no new connections on any port, requests in flight answered (up to
   * rest.shutdown_grace_s), plugins stopped in reverse order (each within `pluginStopMs`:
   * one that takes longer is logged and left behind), database closed.
   */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.serving = false;
    // Every port refuses new connections at once; those open are the plugins' to end.
    for (const listener of this.tcpListeners) listener.close();
    await this.rest?.close(this.settings.rest.shutdown_grace_s * 1000);
    await this.cluster.stopRoles();
    for (const { plugin, hook } of [...this.stopHooks].reverse()) {
      const stopped = await settledWithin(hook, pluginStopMs).catch((error: unknown) => {
        this.log.error({ err: error, plugin }, `plugin '${plugin}' stop failed`);
        return true;
      });
      if (!stopped) this.log.error({ plugin }, `plugin '${plugin}' had not stopped after ${pluginStopMs} ms: left behind`);
    }
    await this.cluster.close().catch((error: unknown) => this.log.error({ err: error }, 'leaving the other instances failed'));
    await this.db?.close();
  }

  private readonly hooks: RequestHooks;
  /** What plugins export, and each plugin's own container. */
  private readonly services: PluginServices;

  private contextFor(definition: PluginDefinition, section: unknown): PluginContext<unknown> {
    const log = this.log.child({ plugin: definition.name });
    const events = this.events.forPlugin(definition.name);
    const cluster = this.cluster.forPlugin(definition.name);
    const values = { config: section, settings: this.settings, db: this.database, log, events, cluster, metrics: this.metrics.registry };
    const { services } = this;
    const container = services.containerFor(definition.name, definition.requires ?? [], values);
    return {
      name: definition.name,
      ...values,
      router: this.routes.registrarFor(definition.name),
      routes: this.routes.routes,
      plugins: this.plugins,
      service: (token, makeDefault) => {
        if (!container.isRegistered(token, true)) container.registerInstance(token, makeDefault());
        return container.resolve(token);
      },
      make: (target) => services.make(definition.name, target),
      listen: (server, spec) => this.openListener(server, log, spec),
      provide: (token, value) => services.provide(definition.name, token, value),
      use: (token) => services.use(definition.name, token),
      hooks: this.hooks.forPlugin(definition.name),
      files: (prefix, dir, options) => this.statics.add(definition.name, prefix, dir, options),
      onStart: (fn) => this.startHooks.push(fn),
      onStop: (fn) => this.stopHooks.push({ plugin: definition.name, hook: fn }),
    };
  }
}

/** Run `hook`: true once it is done, false if `ms` pass first (it goes on, unwaited); rejects with its error. */
async function settledWithin(hook: Hook, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([Promise.resolve(hook()).then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}
