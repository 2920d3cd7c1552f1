import { type DependencyContainer, type InjectionToken, inject, injectable } from 'tsyringe';
import type { PluginCluster } from './cluster';
import type { CoreSettings } from './config-schema';
import { Database } from './database';
import { StartupError } from './errors';
import type { PluginEvents } from './events';
import type { Logger } from './log';
import type { Registry } from './metrics';
import type { PluginContext } from './plugin';

/**
 * What a plugin's services may take through their constructors, besides `Database` (a class,
 * its own token) and the services of the plugins it requires: each plugin's container holds
 * its own (`@inject(PluginLog) log: Logger`).
 */
export const PluginLog: InjectionToken<Logger> = Symbol('PluginLog');
/** The plugin's view of the event bus (`ctx.events`). */
export const PluginEventBus: InjectionToken<PluginEvents> = Symbol('PluginEventBus');
/** The plugin's view of the other instances (`ctx.cluster`). */
export const PluginClusterView: InjectionToken<PluginCluster> = Symbol('PluginClusterView');
/** The plugin's validated config section (`ctx.config`); type the parameter with `Static<typeof schema>`. */
export const PluginConfig: InjectionToken<unknown> = Symbol('PluginConfig');
/** Core settings (`ctx.settings`: rest, database, log, plugins). */
export const CoreConfig: InjectionToken<CoreSettings> = Symbol('CoreConfig');
/** The Prometheus registry GET /metrics serves (`ctx.metrics`). */
export const MetricsRegistry: InjectionToken<Registry> = Symbol('MetricsRegistry');

// biome-ignore lint/suspicious/noExplicitAny: a class with any constructor, as tsyringe's own `constructor<T>`
export type Injectable<T> = new (...args: any[]) => T;

/**
 * `@injectable()` for JavaScript, which has no decorators: `tokens` are what the constructor
 * takes, in order (`injectableWith(Greeter, [PluginConfig, PluginLog, Inventory])`).
 */
export function injectableWith<T>(target: Injectable<T>, tokens: InjectionToken<unknown>[]): Injectable<T> {
  for (const [i, token] of tokens.entries()) inject(token)(target, undefined, i);
  injectable()(target);
  return target;
}

/** What one plugin's container is made of: these values of its context. */
type PluginValues = Pick<PluginContext, 'config' | 'settings' | 'db' | 'log' | 'events' | 'cluster' | 'metrics'>;

interface PluginScope {
  container: DependencyContainer;
  /** The plugin and those it requires: whose services it may take. */
  allowed: ReadonlySet<string>;
}

export function tokenName(token: unknown): string {
  if (typeof token === 'function') return token.name;
  if (typeof token === 'symbol') return token.description ?? String(token);
  return String(token);
}

/**
 * The services plugins export and the child container of each plugin. An exported service
 * lives in the app's container (`provide`); each plugin's container resolves it only if its
 * plugin requires the provider, and otherwise refuses naming both plugins.
 */
export class PluginServices {
  private readonly owners = new Map<InjectionToken<unknown>, string>();
  private readonly scopes = new Map<string, PluginScope>();

  constructor(private readonly app: DependencyContainer) {}

  /** The plugin's own child container, holding its context's values and the services it may use. */
  containerFor(plugin: string, requires: readonly string[], values: PluginValues): DependencyContainer {
    const container = this.app.createChildContainer();
    container.registerInstance(PluginConfig, values.config);
    container.registerInstance(CoreConfig, values.settings);
    container.registerInstance(Database, values.db);
    container.registerInstance(PluginLog, values.log);
    container.registerInstance(PluginEventBus, values.events);
    container.registerInstance(PluginClusterView, values.cluster);
    container.registerInstance(MetricsRegistry, values.metrics);
    const scope = { container, allowed: new Set([plugin, ...requires]) };
    this.scopes.set(plugin, scope);
    for (const [token, owner] of this.owners) this.expose(plugin, scope, token, owner);
    return container;
  }

  provide<T>(plugin: string, token: InjectionToken<T>, value: T): void {
    const owner = this.owners.get(token);
    if (owner) throw new StartupError(`service '${tokenName(token)}' of plugin '${plugin}' is already provided by plugin '${owner}'`);
    this.owners.set(token, plugin);
    this.app.registerInstance(token, value);
    for (const [name, scope] of this.scopes) this.expose(name, scope, token, plugin);
  }

  use<T>(plugin: string, token: InjectionToken<T>): T {
    const refusal = this.refusal(plugin, token);
    if (refusal) throw new StartupError(`plugin '${plugin}' ${refusal}`);
    return this.app.resolve(token);
  }

  /**
   * Make `target` once in the plugin's container (a second call answers the same), its
   * constructor taking what is registered there. A parameter nothing answers stops the start
   * with one line naming the plugin, the class and the missing service. Another plugin's
   * service is that plugin's instance (refused as `use` refuses), and a class the containers
   * the app was given register is theirs: neither is made again.
   */
  make<T>(plugin: string, target: Injectable<T>): T {
    const scope = this.scopes.get(plugin);
    if (!scope) throw new Error(`plugin '${plugin}' has no container`);
    const owner = this.owners.get(target);
    if (owner && owner !== plugin) return this.use(plugin, target);
    const subject = `plugin '${plugin}' cannot make '${target.name}'`;
    if (scope.container.isRegistered(target, true)) return scope.container.resolve(target);
    this.check(plugin, scope.container, target, subject);
    scope.container.registerSingleton(target);
    try {
      return scope.container.resolve(target);
    } catch (error) {
      if (error instanceof StartupError) throw error;
      const unregistered = /unregistered dependency token: "([^"]*)"/.exec(String((error as Error).message));
      if (!unregistered) throw error;
      throw new StartupError(`${subject}: it uses service '${unregistered[1]}', which no enabled plugin provides`);
    }
  }

  /** Why `plugin` may not take `token` ("uses service ..."), or undefined. */
  private refusal(plugin: string, token: InjectionToken<unknown>): string | undefined {
    const owner = this.owners.get(token);
    const name = tokenName(token);
    if (!owner) return `uses service '${name}', which no enabled plugin provides`;
    if (this.scopes.get(plugin)?.allowed.has(owner)) return undefined;
    return `uses service '${name}' of plugin '${owner}' without listing '${owner}' in requires`;
  }

  /** Register in `scope` a factory of another plugin's service: it resolves, or refuses as `use` does. */
  private expose(plugin: string, scope: PluginScope, token: InjectionToken<unknown>, owner: string): void {
    if (owner === plugin) return;
    const refusal = this.refusal(plugin, token);
    scope.container.register(token, {
      useFactory: () => {
        if (refusal) throw new StartupError(`plugin '${plugin}' ${refusal}`);
        return this.app.resolve(token);
      },
    });
  }

  /** Every constructor parameter of `target` has an answer in `container` that the plugin may take. */
  private check(plugin: string, container: DependencyContainer, target: Injectable<unknown>, subject: string): void {
    parameterTokens(target).forEach((token, i) => {
      if (token === undefined)
        throw new StartupError(
          `${subject}: parameter ${i + 1} of '${target.name}' has no known type (an import cycle?): give it @inject(Token)`,
        );
      if (token === null) return;
      if (token === Object || token === Function)
        throw new StartupError(
          `${subject}: parameter ${i + 1} of '${target.name}' has no type a container can resolve (an interface, or a type-only import): give it @inject(Token)`,
        );
      const owner = this.owners.get(token);
      const refusal = owner && owner !== plugin ? this.refusal(plugin, token) : undefined;
      if (refusal) throw new StartupError(`${subject}: it ${refusal}`);
      if (container.isRegistered(token, true)) return;
      const unmade = typeof token === 'function' ? ` (nor did '${plugin}' make it first)` : '';
      throw new StartupError(`${subject}: it uses service '${tokenName(token)}', which no enabled plugin provides${unmade}`);
    });
  }
}

/**
 * The tokens `target`'s constructor takes, as tsyringe's `@injectable()` reads them: its
 * parameter types, overridden by `@inject(Token)`; null for a parameter not to check
 * (optional, or `delay`ed), undefined for one whose type is unknown (an import cycle).
 */
function parameterTokens(target: Injectable<unknown>): (InjectionToken<unknown> | null | undefined)[] {
  const types: unknown[] = [...((Reflect.getMetadata('design:paramtypes', target) as unknown[] | undefined) ?? [])];
  const injected = (Reflect.getOwnMetadata('injectionTokens', target) ?? {}) as Record<string, unknown>;
  for (const [i, descriptor] of Object.entries(injected)) types[Number(i)] = descriptor;
  while (types.length < target.length) types.push(undefined);
  return types.map((type) => {
    if (type && typeof type === 'object') {
      const d = type as { token?: unknown; isOptional?: boolean; multiple?: boolean; createProxy?: unknown };
      if (d.createProxy || d.isOptional || d.multiple || !('token' in d)) return null;
      return d.token as InjectionToken<unknown>;
    }
    return type as InjectionToken<unknown> | undefined;
  });
}
