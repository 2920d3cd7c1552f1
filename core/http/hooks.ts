import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Access, Credential, KeyLookup } from '../access';
import type { HttpError } from '../errors';
import type { Logger } from '../log';
import type { RequestContext, Route } from './routes';

/** One request, once it was answered (refusals included) or cut off. */
export interface Answered {
  /** The route that took it; undefined when none did (refused before routing, a static file, no such endpoint). */
  route?: Readonly<Route>;
  req: IncomingMessage;
  /** Who sent it; undefined on public routes and before routing. */
  access?: Access;
  /** Its parsed body; undefined when it had none or was refused before it was read. */
  body?: unknown;
  /** The clients its body names, where its route says it names them (`scoped.clients` or `clients`). */
  clients: readonly string[];
  /** When it arrived. */
  time: Date;
  /** Undefined when the connection closed before the answer was sent. */
  status?: number;
  /** From its arrival to its answer, in milliseconds (0.1 ms steps). */
  ms: number;
}

/** A request routed and let in, before its body is read. */
export interface Arriving {
  route: Readonly<Route>;
  req: IncomingMessage;
  res: ServerResponse;
  /** Who sent it; undefined on public routes. */
  access?: Access;
}

/** Who a request without a key comes from (a session cookie), or undefined. */
export type RequestIdentifier = (req: IncomingMessage) => Credential | undefined | Promise<Credential | undefined>;

/**
 * Where plugins join the handling of requests, as Fastify's hooks: who a key stands for,
 * a check before each handler, and what was answered. Core runs them; it knows none.
 */
export interface PluginHooks {
  /** Keys other than `rest.api_token` (tokens): `lookup` says who one stands for, or undefined. */
  authenticate(lookup: KeyLookup): void;
  /**
   * Requests without a key (a person's session cookie): `identify` says who one comes from,
   * or undefined (then 401, as for no key); it may throw an HttpError to refuse it (a
   * cookie without its CSRF token).
   */
  identify(identify: RequestIdentifier): void;
  /**
   * Once a request is routed and its caller let in, before its body is read: throw an
   * HttpError to refuse it (a limit on requests from one address).
   */
  onRequest(fn: (arriving: Arriving) => void | Promise<void>, options?: HookOptions): void;
  /** Before the handler, once the body is valid: throw an HttpError to refuse the request. */
  preHandler(fn: (ctx: RequestContext<unknown>) => void | Promise<void>, options?: HookOptions): void;
  /** Once the handler answered without an error, before the answer is sent: `result` is what it returned. */
  onSend(fn: (ctx: RequestContext<unknown>, result: unknown) => void | Promise<void>, options?: HookOptions): void;
  /** Once each request is answered or cut off (refusals included). Called on the request path: keep it short. */
  onResponse(fn: (answered: Answered) => void, options?: HookOptions): void;
  /** Each refusal and failure, as it is about to be answered (a 500 carries 'internal_error'). Keep it short. */
  onError(fn: (error: HttpError, req: IncomingMessage) => void, options?: HookOptions): void;
}

/**
 * Where a request hook applies: by default the routes of the plugin that registers it, as a
 * Fastify plugin's hooks stay in its own scope; `global` for every request, routed or not
 * (sessions, rate limits, the audit trail, metrics).
 */
export interface HookOptions {
  global?: boolean;
}

interface Registered<F> {
  plugin: string;
  fn: F;
  global: boolean;
}

function applies(hook: Registered<unknown>, route: Readonly<Route> | undefined): boolean {
  return hook.global || hook.plugin === route?.owner;
}

/** The hooks every plugin registered, and running them. */
export class RequestHooks {
  readonly lookups: KeyLookup[] = [];
  readonly identifiers: RequestIdentifier[] = [];
  private readonly arrivals: Registered<(arriving: Arriving) => void | Promise<void>>[] = [];
  private readonly preHandlers: Registered<(ctx: RequestContext<unknown>) => void | Promise<void>>[] = [];
  private readonly senders: Registered<(ctx: RequestContext<unknown>, result: unknown) => void | Promise<void>>[] = [];
  private readonly errorHooks: Registered<(error: HttpError, req: IncomingMessage) => void>[] = [];
  private readonly responders: Registered<(answered: Answered) => void>[] = [];
  constructor(private readonly log: Logger) {}

  forPlugin(plugin: string): PluginHooks {
    const add =
      <F>(list: Registered<F>[]) =>
      (fn: F, options?: HookOptions): void => {
        list.push({ plugin, fn, global: options?.global ?? false });
      };
    return {
      authenticate: (lookup) => this.lookups.push(lookup),
      identify: (identify) => this.identifiers.push(identify),
      onRequest: add(this.arrivals),
      preHandler: add(this.preHandlers),
      onSend: add(this.senders),
      onResponse: add(this.responders),
      onError: add(this.errorHooks),
    };
  }

  /** The onRequest hooks that apply, in turn; undefined (no turn of the event loop) when none does. */
  arrived(arriving: Arriving): Promise<void> | undefined {
    if (!this.arrivals.some((hook) => applies(hook, arriving.route))) return undefined;
    return (async () => {
      for (const hook of this.arrivals) if (applies(hook, arriving.route)) await hook.fn(arriving);
    })();
  }

  /** A refusal or failure is about to be answered: tell the onError hooks (one that throws is logged, not answered). */
  failed(error: HttpError, req: IncomingMessage, route: Readonly<Route> | undefined): void {
    for (const hook of this.errorHooks) {
      if (!applies(hook, route)) continue;
      try {
        hook.fn(error, req);
      } catch (thrown) {
        this.log.error(
          { err: thrown, plugin: hook.plugin, method: req.method, url: req.url },
          `an onError hook of plugin '${hook.plugin}' failed`,
        );
      }
    }
  }

  async beforeHandler(ctx: RequestContext<unknown>): Promise<void> {
    for (const hook of this.preHandlers) if (applies(hook, ctx.route)) await hook.fn(ctx);
  }

  async beforeSend(ctx: RequestContext<unknown>, result: unknown): Promise<void> {
    for (const hook of this.senders) if (applies(hook, ctx.route)) await hook.fn(ctx, result);
  }

  /** A request was answered or cut off: tell the onResponse hooks that apply (one that throws is logged). */
  answered(exchange: Answered): void {
    for (const hook of this.responders) {
      if (!applies(hook, exchange.route)) continue;
      try {
        hook.fn(exchange);
      } catch (error) {
        const { req } = exchange;
        this.log.error(
          { err: error, plugin: hook.plugin, method: req.method, url: req.url },
          `an onResponse hook of plugin '${hook.plugin}' failed`,
        );
      }
    }
  }
}
