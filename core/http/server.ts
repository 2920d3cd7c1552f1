import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import polka from 'polka';
import { type Access, type Credential, type Permissions, accessForRoute } from '../access';
import type { Database } from '../database';
import { ErrorCode, HttpError } from '../errors';
import type { Logger } from '../log';
import { isKey, keyOf } from './authorization';
import { handle, toHttpError } from './handle';
import type { RequestHooks } from './hooks';
import { InFlight } from './in-flight';
import { KeyFailures } from './key-failures';
import { withMethodOverride } from './method-override';
import { originOf } from './origin';
import { commonHeaders, sendError } from './reply';
import { Exchange } from './exchange';
import { requestLogLine } from './request-log';
import type { Route } from './routes';
import { type StaticMount, withStaticFiles } from './static';
import { type RedirectTo, type TlsFiles, withTransportRules } from './transport';
import { answerUnroutedRequests } from './unrouted';

export interface RestOptions {
  routes: Route[];
  /** The configured key (`rest.api_token`): an admin key with shell, as ogCLI and ogCP use it. */
  token: string;
  /** Wrong keys from one address within a minute before it is refused for a minute (0: never). */
  maxKeyFailures?: number;
  maxRequestBytes: number;
  maxResponseBytes: number;
  /** Deepest nesting a request body may have (rest.max_json_depth). */
  maxJsonDepth: number;
  db: Database;
  log: Logger;
  /** File trees served without `Authorization` (GET and HEAD only), before any other check. */
  statics?: StaticMount[];
  /** The plugins' request hooks: key lookups, checks before handlers, what was answered. */
  hooks: RequestHooks;
  /** What each role and grant allows (core's permissions and the plugins'). */
  permissions: Permissions;
  /** Proxies whose X-Forwarded-Proto and X-Forwarded-For are believed (rest.trusted_proxies). */
  trustedProxies?: readonly string[];
  /** Serve HTTPS with this certificate and key (rest.tls) rather than plain HTTP. */
  tls?: TlsFiles;
  /** HTTPS: send Strict-Transport-Security with this max-age. Plain HTTP: send browsers' page requests where this says. */
  transport?: { hstsMaxAgeS?: number; redirectTo?: RedirectTo };
}

/** Each request's exchange: who sent it, its route, its body. */
const exchanges = new WeakMap<IncomingMessage, Exchange>();
const inFlightOf = new WeakMap<http.Server, InFlight>();

/**
 * Stop a listener made by createRestServer: no new connections, requests in flight get up
 * to `graceMs` to be answered, then every connection is closed. Resolves with how many
 * requests were cut off.
 */
export function closeRestServer(server: http.Server, graceMs: number, log: Logger): Promise<number> {
  const inFlight = inFlightOf.get(server);
  if (!inFlight) throw new Error('not a REST listener');
  return inFlight.close(server, graceMs, log);
}

/**
 * The REST listener. Order of checks for every request: X-Sequence echo, authorization,
 * route (404/405), body size (413), JSON syntax (400), schema (400), handler.
 */
export function createRestServer(options: RestOptions): http.Server {
  const { routes, maxResponseBytes, log } = options;
  const token = Buffer.from(options.token);
  const methodsByPath = new Map<string, string[]>();
  for (const route of routes) methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method]);
  // A public path may hold parameters (`/things/:id`, `/files/*`): matched as polka routes it.
  const publicRoutes = routes.filter((r) => r.public).map((r) => ({ method: r.method, path: pathPattern(r.path) }));
  const credentials = new Map<string, (req: IncomingMessage) => Access | undefined>(
    routes.flatMap((r) => (r.credential ? [[`${r.method} ${r.path}`, r.credential] as const] : [])),
  );

  // The spec logs every request but these polled reads; refused requests are logged too.
  const logLine = requestLogLine(log, new Set(routes.filter((r) => !r.log).map((r) => `${r.method} ${r.path}`)));
  const inFlight = new InFlight();
  const { hooks } = options;
  const answered = (exchange: Parameters<typeof logLine>[0]): void => {
    logLine(exchange);
    hooks.answered(exchange);
  };
  const trusted = new Set(options.trustedProxies ?? []);
  const handleOptions = { ...options, origin: (req: IncomingMessage) => originOf(req, trusted) };
  const fail = (req: IncomingMessage, res: ServerResponse, error: unknown): void => {
    const known = toHttpError(error);
    // A 503 refuses for load: no failure of the service, and a flood of them (PCs retrying a busy
    // file) must not write a stack each. The request log has each; the plugin may sum them up.
    if (known.status >= 500 && known.status !== 503) log.error({ err: error, method: req.method, url: req.url }, 'request failed');
    hooks.failed(known, req, exchanges.get(req)?.route);
    const headers: Record<string, string> = { ...commonHeaders(req), ...known.headers };
    // The reference's challenge, unless the refusal brings its own or a page's script sent the
    // request: a browser asked for Basic opens its own login box over the page.
    if (known.status === 401) headers['WWW-Authenticate'] ??= fromScript(req) ? 'Bearer realm="ogserve"' : 'Basic realm="ogserve"';
    if (known.status === 413) headers.Connection = 'close';
    sendError(res, known, maxResponseBytes, headers);
  };

  const app = polka({
    onError: (error: unknown, req: IncomingMessage, res: ServerResponse) => fail(req, res, error),
    onNoMatch: (req: IncomingMessage & { path?: string }, res: ServerResponse) => {
      const allowed = methodsByPath.get(req.path ?? '');
      if (!allowed) return fail(req, res, new HttpError(404, ErrorCode.notFound, `no endpoint at ${req.path}`));
      res.setHeader('Allow', allowed.join(', '));
      const message = `${req.method} is not allowed on ${req.path}; use ${allowed.join(' or ')}`;
      fail(req, res, new HttpError(405, ErrorCode.methodNotAllowed, message));
    },
  });

  const failures = new KeyFailures(options.maxKeyFailures ?? 20, log);
  /** The access of the first credential one of `finders` finds (a key's lookups, a keyless request's identifiers). */
  const firstAccess = async <T>(finders: ((of: T) => Credential | undefined | Promise<Credential | undefined>)[], of: T) => {
    for (const find of finders) {
      const credential = await find(of);
      if (credential) return options.permissions.accessOf(credential);
    }
    return undefined;
  };
  const configuredKey = options.permissions.configuredKey();
  app.use((req: IncomingMessage & { path?: string }, res: ServerResponse, next: () => void) => {
    const supplied = keyOf(req.headers.authorization);
    if (publicRoutes.some((r) => r.method === req.method && r.path.test(req.path ?? ''))) return next();
    const exchange = exchanges.get(req)!;
    const letIn = (access: Access): void => {
      exchange.access = access;
      next();
    };
    const standIn = supplied === undefined ? credentials.get(`${req.method} ${req.path}`)?.(req) : undefined;
    if (standIn) return letIn(standIn);
    // The source address costs a system call on a new connection: asked only once a key has failed.
    const wait = failures.any ? failures.retryAfter(req.socket.remoteAddress ?? '') : 0;
    if (wait > 0) {
      res.setHeader('Retry-After', String(wait));
      const address = req.socket.remoteAddress;
      return fail(req, res, new HttpError(429, ErrorCode.tooManyAttempts, `too many wrong keys from ${address}: try again in ${wait} s`));
    }
    const unauthorized = () =>
      fail(req, res, new HttpError(401, ErrorCode.unauthorized, 'the Authorization header must carry the API key'));
    const failed = (error: unknown) => fail(req, res, error);
    if (supplied === undefined) {
      if (hooks.identifiers.length === 0) return unauthorized();
      return void firstAccess(hooks.identifiers, req).then((access) => (access ? letIn(access) : unauthorized()), failed);
    }
    // The configured key, the common case, is settled without a turn of the event loop.
    if (isKey(supplied, token)) return letIn(configuredKey);
    firstAccess(hooks.lookups, supplied).then((access) => {
      if (access) return letIn(access);
      failures.failed(req.socket.remoteAddress ?? '');
      unauthorized();
    }, failed);
  });

  for (const route of routes) {
    app.add(route.method as Parameters<typeof app.add>[0], route.path, (req: IncomingMessage, res: ServerResponse) => {
      const exchange = exchanges.get(req)!;
      const access = accessForRoute(exchange.access, route.permission);
      exchange.route = route;
      exchange.access = access;
      const endpoint = `${route.method} ${route.path}`;
      const refused =
        route.permission && !access?.permissions.has(route.permission)
          ? `${endpoint} needs the '${route.permission}' permission, which the key '${access?.name}' (${access?.role}) does not have`
          : access?.scope && !route.scoped
            ? `${endpoint} is not open to the key '${access.name}', which is limited to ${access.scope.description}`
            : undefined;
      if (refused) return fail(req, res, new HttpError(403, ErrorCode.forbidden, refused));
      if (route.stream) inFlight.stream(res);
      handle(route, req, res, access, handleOptions, exchange).catch((error: unknown) => fail(req, res, error));
    });
  }

  const api = withMethodOverride(app.handler as http.RequestListener);
  const routed = withStaticFiles(options.statics ?? [], api, maxResponseBytes);
  const listener = withTransportRules((req: IncomingMessage, res: ServerResponse): void => {
    exchanges.set(req, new Exchange(req, res, answered, ({ res }) => inFlight.done(res)));
    inFlight.begin(res);
    routed(req, res);
  }, options.transport ?? {});
  const server = options.tls ? https.createServer({ ...options.tls }, listener) : http.createServer(listener);
  // A client that half-closes once its request is sent (`nc -N`, some HTTP/1.0 clients) still
  // gets its answer, then the connection closes: by default Node drops the request unanswered.
  Object.assign(server, { httpAllowHalfOpen: true });
  inFlightOf.set(server, inFlight);
  inFlight.watch(server);
  answerUnroutedRequests(server, listener);
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  server.keepAliveTimeout = 5_000;
  return server;
}

/** A route's path as polka matches it: `:name` is one segment, `*` the rest. */
function pathPattern(route: string): RegExp {
  const literal = route.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${literal.replace(/:[^/]+/g, '[^/]+').replace(/\*/g, '.+')}/?$`);
}

/** A request a page's script made (fetch, XMLHttpRequest), as browsers mark them; never the reference's clients. */
function fromScript(req: IncomingMessage): boolean {
  const mode = req.headers['sec-fetch-mode'];
  return mode === 'cors' || mode === 'same-origin' || mode === 'no-cors';
}
