import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EntityManager } from '@mikro-orm/core';
import type { Static, TSchema } from '@sinclair/typebox';
import type { Access, Permission, Permissions } from '../access';
import type { Database } from '../database';
import { StartupError } from '../errors';
import type { Logger } from '../log';
import { compile, type Checker } from '../validation';
import { type RequestOrigin, originOf } from './origin';
import { type ClientsAt, type ClientsReader, clientsReader } from './route-clients';

/**
 * What a route does with a request body:
 * - required: a JSON body must be sent and match the schema;
 * - optional: a body, if sent, must match the schema;
 * - forbidden: any body is an error (GET /scopes, GET /stats);
 * - ignored: the body is not read.
 */
export type BodyPolicy = 'required' | 'optional' | 'forbidden' | 'ignored';

export interface RouteSpec<S extends TSchema> {
  /**
   * What the caller must be allowed (core/access.ts): required of every route but the
   * `public` ones, so that no route is open to every token by omission.
   */
  permission?: Permission;
  body?: S;
  bodyPolicy?: BodyPolicy;
  /** false keeps the route out of the request log (endpoints consoles poll). */
  log?: boolean;
  /**
   * Whether a request is an action for the audit trail: it changes something, or reaches an
   * agent or the network. By default every route but GET ones and those needing only `read`.
   */
  audit?: boolean;
  /**
   * The answer stays open (an event stream, a `Reply.stream` that does not end): a stop ends
   * it at once instead of waiting for it. Every answer is what the handler returns: a JSON
   * value, or a `Reply` (another media type, uncapped, or a body written as it goes).
   */
  stream?: boolean;
  /**
   * Another credential this route accepts when the request has no key, for clients that
   * cannot set headers (a browser's EventSource): the access it stands for lets it through.
   */
  credential?: (req: IncomingMessage) => Access | undefined;
  /** Answered without the key (health checks): never anything secret or per-client. */
  public?: boolean;
  /**
   * Whether a token limited to part of the fleet may call it (core/access.ts AccessScope):
   * `{ clients }`, when every client its body names is inside (core refuses the request
   * otherwise; `clients` says where the body names them, see `ClientsAt`); `filtered`, when
   * the handler leaves out of its answer what is outside (`ctx.access.scope`); `open`, when
   * the answer names no client. Absent: refused to it.
   */
  scoped?: { clients: ClientsAt } | 'filtered' | 'open';
  /**
   * Where the body of a route that is not `scoped` names the clients it acts on, for the
   * audit trail and the request log (a scoped route says it in `scoped.clients`).
   */
  clients?: ClientsAt;
  /** The schema of the 200 answer (TypeBox): in the OpenAPI document, and checked by the tests. */
  response?: TSchema;
  /**
   * Event types that carry what this route answers (`audit.recorded` for GET /audit): an
   * event stream sends them only to readers this route would answer (its permission, and
   * nothing to a limited token unless the route is `scoped`).
   */
  events?: readonly string[];
  /** One line for the API document. */
  summary?: string;
  /** The media type of the 200 answer, when it is not JSON (a `Reply.text` or a stream): for the API document. */
  responseType?: string;
  /** A check of this route alone, after the plugins' preHandler hooks: throw an HttpError to refuse the request. */
  preHandler?: (ctx: RequestContext<Static<S>>) => void | Promise<void>;
}

export type Handler<B> = (ctx: RequestContext<B>) => unknown;

/** The query of a request, as polka left it (`req.url` with its query string). */
export function queryOf(req: IncomingMessage): URLSearchParams {
  const url = req.url ?? '';
  const mark = url.indexOf('?');
  return new URLSearchParams(mark < 0 ? '' : url.slice(mark + 1));
}

/** One request: the validated body, the raw request, a lazily forked EntityManager and logger. */
export class RequestContext<B> {
  private forked?: EntityManager;
  private requestLog?: Logger;

  constructor(
    /** The route that took it: its owner, path, permission and declarations. */
    readonly route: Readonly<Route>,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly body: B,
    private readonly baseLog: Logger,
    private readonly db: Database,
    /** Who sent it; undefined on public routes. */
    readonly access?: Access,
    private readonly origin: (req: IncomingMessage) => RequestOrigin = (req) => originOf(req, new Set()),
  ) {}

  /** Whether the request came over HTTPS, here or at a trusted proxy (a cookie is then `Secure`). */
  get secure(): boolean {
    return this.origin(this.req).secure;
  }

  /** The client's address, through the trusted proxies (rest.trusted_proxies). */
  get address(): string {
    return this.origin(this.req).address;
  }

  /**
   * Lines logged about this request name it (`request: "POST /client/add"`, without the query,
   * which may carry a ticket); made on first use, as most requests log nothing.
   */
  get log(): Logger {
    if (!this.requestLog) {
      const path = (this.req.url ?? '').split('?', 1)[0];
      this.requestLog = this.baseLog.child({ request: `${this.req.method} ${path}` });
    }
    return this.requestLog;
  }

  get em(): EntityManager {
    return (this.forked ??= this.db.fork());
  }

  /** The query string's parameters. */
  get query(): URLSearchParams {
    return queryOf(this.req);
  }
}

/** A route as registered: its spec with the defaults applied (`permission` is undefined only on public routes). */
export interface Route
  extends Pick<RouteSpec<TSchema>, 'permission' | 'body' | 'response' | 'summary' | 'credential' | 'preHandler'>,
    Required<Pick<RouteSpec<TSchema>, 'responseType' | 'log' | 'audit' | 'stream' | 'events' | 'public'>> {
  method: string;
  path: string;
  policy: BodyPolicy;
  check?: Checker<TSchema>;
  scoped?: 'clients' | 'filtered' | 'open';
  /** The clients a body names, read as the route declared: the scope check, the audit trail and the request log use it. */
  clientsOf?: ClientsReader;
  handler: Handler<unknown>;
  owner: string;
}

export interface RouteRegistrar {
  get<S extends TSchema>(path: string, spec: RouteSpec<S>, handler: Handler<Static<S>>): void;
  post<S extends TSchema>(path: string, spec: RouteSpec<S>, handler: Handler<Static<S>>): void;
  delete<S extends TSchema>(path: string, spec: RouteSpec<S>, handler: Handler<Static<S>>): void;
  /** Node sends a HEAD answer's head only, whatever the handler writes: register the GET's handler. */
  head<S extends TSchema>(path: string, spec: RouteSpec<S>, handler: Handler<Static<S>>): void;
}

/** Every route of every plugin; two plugins may not claim the same method and path. */
export class RouteTable {
  readonly routes: Route[] = [];

  /** `permissions`: what core and the enabled plugins declare; a route names one of them. */
  constructor(private readonly permissions: Permissions) {}

  registrarFor(owner: string): RouteRegistrar {
    const add =
      (method: string) =>
      <S extends TSchema>(path: string, spec: RouteSpec<S>, handler: Handler<Static<S>>): void =>
        this.add(owner, method, path, spec as unknown as RouteSpec<TSchema>, handler as Handler<unknown>);
    return { get: add('GET'), post: add('POST'), delete: add('DELETE'), head: add('HEAD') };
  }

  private add(owner: string, method: string, path: string, spec: RouteSpec<TSchema>, handler: Handler<unknown>): void {
    const taken = this.routes.find((r) => r.method === method && r.path === path);
    if (taken) throw new StartupError(`route ${method} ${path} of plugin '${owner}' is already registered by plugin '${taken.owner}'`);
    if (!spec.public && !this.permissions.has(spec.permission ?? '')) {
      const named =
        spec.permission === undefined
          ? 'must name its permission'
          : `names permission '${spec.permission}', which no enabled plugin declares;`;
      throw new StartupError(
        `route ${method} ${path} of plugin '${owner}' ${named} (one of ${this.permissions.names().join(', ')}) or be public`,
      );
    }
    const { scoped, clientsOf } = this.clientsDeclared(owner, method, path, spec);
    this.routes.push({
      method,
      path,
      permission: spec.public ? undefined : spec.permission,
      policy: spec.bodyPolicy ?? (spec.body ? 'required' : 'ignored'),
      body: spec.body,
      check: spec.body ? compile(spec.body) : undefined,
      response: spec.response,
      summary: spec.summary,
      responseType: spec.responseType ?? 'application/json',
      log: spec.log ?? true,
      audit: spec.audit ?? (!spec.public && method !== 'GET' && method !== 'HEAD' && spec.permission !== 'read'),
      stream: spec.stream ?? false,
      scoped,
      clientsOf,
      events: spec.events ?? [],
      credential: spec.credential,
      public: spec.public ?? false,
      preHandler: spec.preHandler,
      handler,
      owner,
    });
  }

  /** What a route's `scoped` and `clients` declare, checked against its body schema. */
  private clientsDeclared(owner: string, method: string, path: string, spec: RouteSpec<TSchema>): Pick<Route, 'scoped' | 'clientsOf'> {
    const route = `route ${method} ${path} of plugin '${owner}'`;
    const declared: unknown = spec.scoped;
    const scoped = typeof declared === 'object' && declared !== null ? (declared as { clients?: ClientsAt }) : undefined;
    // Guessing where a body names its clients once let a limited token through: it is said, once.
    if (declared === 'clients' || (scoped && (scoped.clients === undefined || spec.clients !== undefined)))
      throw new StartupError(
        `${route} must say once where its body names its clients: scoped: { clients: 'clients' } (a path into its body schema) or scoped: { clients: (body) => [...] }`,
      );
    if (!scoped && declared !== undefined && declared !== 'filtered' && declared !== 'open')
      throw new StartupError(`${route}: scoped must be { clients }, 'filtered' or 'open', not ${JSON.stringify(declared)}`);
    const at = scoped?.clients ?? spec.clients;
    try {
      return {
        scoped: scoped ? 'clients' : (declared as Route['scoped']),
        clientsOf: at === undefined ? undefined : clientsReader(at, spec.body),
      };
    } catch (error) {
      throw new StartupError(`${route} declares where its clients are, but ${(error as Error).message}`);
    }
  }
}
