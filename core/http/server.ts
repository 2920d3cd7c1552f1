import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import polka from 'polka';
import getRawBody from 'raw-body';
import type { Access, Permissions } from '../access';
import type { Database } from '../database';
import { ErrorCode, HttpError, badRequest } from '../errors';
import type { Logger } from '../log';
import { clientsNamed } from './clients-named';
import type { RequestHooks } from './hooks';
import { InvalidUtf8Error, bodyText } from './body-text';
import { InFlight } from './in-flight';
import { KeyFailures } from './key-failures';
import { JsonDepthError, JsonSyntaxError, LoneSurrogateError, NulCharacterError, parseJson } from './json';
import { isKey, keyOf } from './authorization';
import { commonHeaders, respond, sendError } from './reply';
import { withMethodOverride } from './method-override';
import { RequestLog } from './request-log';
import { RequestContext, type Route } from './routes';
import { type StaticMount, withStaticFiles } from './static';
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
}

const noBody = Symbol('no body');
/** Who sent each authorised request. */
const accessByRequest = new WeakMap<IncomingMessage, Access>();
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
  const publicRoutes = new Set(routes.filter((r) => r.public).map((r) => `${r.method} ${r.path}`));
  const credentials = new Map<string, (req: IncomingMessage) => Access | undefined>(
    routes.flatMap((r) => (r.credential ? [[`${r.method} ${r.path}`, r.credential] as const] : [])),
  );

  // The spec logs every request but these polled reads; refused requests are logged too.
  const requestLog = new RequestLog(log, new Set(routes.filter((r) => !r.log).map((r) => `${r.method} ${r.path}`)));
  const inFlight = new InFlight();
  const { hooks } = options;
  const fail = (req: IncomingMessage, res: ServerResponse, error: unknown): void => {
    const known = toHttpError(error);
    if (known.status >= 500) log.error({ err: error, method: req.method, url: req.url }, 'request failed');
    const headers: Record<string, string> = commonHeaders(req);
    if (known.status === 401) headers['WWW-Authenticate'] = 'Basic realm="ogserve"';
    if (known.status === 413) headers.Connection = 'close';
    sendError(res, known, maxResponseBytes, headers);
  };

  const app = polka({
    onError: (error: unknown, req: IncomingMessage, res: ServerResponse) => fail(req, res, error),
    onNoMatch: (req: IncomingMessage & { path?: string }, res: ServerResponse) => {
      const allowed = methodsByPath.get(req.path ?? '');
      if (!allowed) return fail(req, res, new HttpError(404, ErrorCode.notFound, `no endpoint at ${req.path}`));
      res.setHeader('Allow', allowed.join(', '));
      fail(
        req,
        res,
        new HttpError(405, ErrorCode.methodNotAllowed, `${req.method} is not allowed on ${req.path}; use ${allowed.join(' or ')}`),
      );
    },
  });

  const failures = new KeyFailures(options.maxKeyFailures ?? 20, log);
  const accessFor = async (key: string): Promise<Access | undefined> => {
    for (const lookup of hooks.lookups) {
      const credential = await lookup(key);
      if (credential) return options.permissions.accessOf(credential);
    }
    return undefined;
  };
  const identify = async (req: IncomingMessage): Promise<Access | undefined> => {
    for (const identifier of hooks.identifiers) {
      const credential = await identifier(req);
      if (credential) return options.permissions.accessOf(credential);
    }
    return undefined;
  };
  const configuredKey = options.permissions.configuredKey();
  app.use((req: IncomingMessage & { path?: string }, res: ServerResponse, next: () => void) => {
    const supplied = keyOf(req.headers.authorization);
    const endpoint = `${req.method} ${req.path}`;
    if (publicRoutes.has(endpoint)) return next();
    const standIn = supplied === undefined ? credentials.get(endpoint)?.(req) : undefined;
    if (standIn) {
      accessByRequest.set(req, standIn);
      return next();
    }
    // The source address costs a system call on a new connection: asked only once a key has failed.
    const wait = failures.any ? failures.retryAfter(req.socket.remoteAddress ?? '') : 0;
    if (wait > 0) {
      res.setHeader('Retry-After', String(wait));
      const address = req.socket.remoteAddress;
      return fail(req, res, new HttpError(429, ErrorCode.tooManyAttempts, `too many wrong keys from ${address}: try again in ${wait} s`));
    }
    const unauthorized = () =>
      fail(req, res, new HttpError(401, ErrorCode.unauthorized, 'the Authorization header must carry the API key'));
    if (supplied === undefined) {
      if (hooks.identifiers.length === 0) return unauthorized();
      return identify(req).then(
        (access) => {
          if (!access) return unauthorized();
          accessByRequest.set(req, access);
          next();
        },
        (error: unknown) => fail(req, res, error),
      );
    }
    // The configured key, the common case, is settled without a turn of the event loop.
    if (isKey(supplied, token)) {
      accessByRequest.set(req, configuredKey);
      return next();
    }
    accessFor(supplied).then(
      (access) => {
        if (!access) {
          failures.failed(req.socket.remoteAddress ?? '');
          return unauthorized();
        }
        accessByRequest.set(req, access);
        next();
      },
      (error: unknown) => fail(req, res, error),
    );
  });

  for (const route of routes) {
    app.add(route.method as Parameters<typeof app.add>[0], route.path, (req: IncomingMessage, res: ServerResponse) => {
      const access = accessByRequest.get(req);
      hooks.routed(route, req, access);
      if (route.permission && !access?.permissions.has(route.permission)) {
        const why = `${route.method} ${route.path} needs the '${route.permission}' permission`;
        return fail(
          req,
          res,
          new HttpError(403, ErrorCode.forbidden, `${why}, which the key '${access?.name}' (${access?.role}) does not have`),
        );
      }
      if (access?.scope && !route.scoped) {
        return fail(
          req,
          res,
          new HttpError(
            403,
            ErrorCode.forbidden,
            `${route.method} ${route.path} is not open to the key '${access.name}', which is limited to ${access.scope.description}`,
          ),
        );
      }
      if (route.stream) inFlight.stream(res);
      handle(route, req, res, options, requestLog).catch((error: unknown) => fail(req, res, error));
    });
  }

  const api = withMethodOverride(app.handler as http.RequestListener);
  const routed = withStaticFiles(options.statics ?? [], api, maxResponseBytes);
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    hooks.begin(req, res);
    inFlight.begin(req, res);
    requestLog.begin(req, res);
    routed(req, res);
  };
  const server = http.createServer(listener);
  inFlightOf.set(server, inFlight);
  inFlight.watch(server);
  answerUnroutedRequests(server, listener);
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  server.keepAliveTimeout = 5_000;
  return server;
}

async function handle(
  route: Route,
  req: IncomingMessage,
  res: ServerResponse,
  options: RestOptions,
  requestLog: RequestLog,
): Promise<void> {
  let body: unknown = noBody;
  if (route.policy !== 'ignored') {
    const raw = await readBody(req, options.maxRequestBytes);
    if (raw.length > 0) {
      if (route.policy === 'forbidden') throw badRequest(ErrorCode.bodyNotAllowed, `${route.method} ${route.path} takes no request body`);
      body = parseBody(decodeBody(raw), options.maxJsonDepth);
      requestLog.noteBody(req, body);
      options.hooks.noteBody(req, body);
    }
  }
  if (body === noBody) {
    if (route.policy === 'required') throw badRequest(ErrorCode.bodyRequired, `${route.method} ${route.path} needs a JSON body`);
    body = route.policy === 'optional' ? {} : undefined;
  }
  // Before the schema: a client outside a limited key's scope is refused whatever else is wrong.
  const access = accessByRequest.get(req);
  if (access?.scope && route.scoped === 'clients') {
    const [outside] = await access.scope.outside(clientsNamed(body));
    if (outside !== undefined) {
      throw new HttpError(
        403,
        ErrorCode.forbidden,
        `client ${outside} is outside what the key '${access.name}' may reach (${access.scope.description})`,
      );
    }
  }
  if (route.check) {
    const result = route.check(body);
    if (!result.ok) {
      const { field, message, missing } = result.violation;
      throw badRequest(missing ? ErrorCode.missingField : ErrorCode.invalidField, message, field || undefined);
    }
  }
  const ctx = new RequestContext(req, res, body, options.log, options.db, access);
  await options.hooks.beforeHandler(ctx);
  const result = await route.handler(ctx);
  if (route.stream) return;
  respond(req, res, result, options.maxResponseBytes);
}

/**
 * The body's bytes. raw-body reads them and bodyText decodes them: asked for 'utf8',
 * raw-body would make an iconv-lite decoder for every request, and read bytes that are not
 * UTF-8 as U+FFFD where they must be refused.
 */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  try {
    return await getRawBody(req, { limit, length: req.headers['content-length'] });
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (status === 413) throw new HttpError(413, ErrorCode.payloadTooLarge, `the request body exceeds ${limit} bytes`);
    throw badRequest(ErrorCode.invalidJson, `the request body could not be read: ${(error as Error).message}`);
  }
}

/** The body as text: bytes that are not UTF-8 are a 400 naming the string that holds them. */
function decodeBody(raw: Buffer): string {
  try {
    return bodyText(raw);
  } catch (error) {
    if (!(error instanceof InvalidUtf8Error)) throw error;
    throw badRequest(error.inString ? ErrorCode.invalidField : ErrorCode.invalidJson, error.message, error.field);
  }
}

function parseBody(raw: string, maxDepth: number): unknown {
  try {
    return parseJson(raw, maxDepth);
  } catch (error) {
    if (error instanceof NulCharacterError || error instanceof LoneSurrogateError)
      throw badRequest(ErrorCode.invalidField, error.message, error.field);
    if (error instanceof JsonDepthError) throw badRequest(ErrorCode.invalidJson, error.message);
    if (error instanceof JsonSyntaxError) throw badRequest(ErrorCode.invalidJson, `the request body is not valid JSON: ${error.message}`);
    throw error;
  }
}

function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  const name = (error as { name?: string })?.name ?? '';
  if (name === 'UniqueConstraintViolationException') return badRequest(ErrorCode.duplicate, 'the change would duplicate a unique value');
  if (name === 'ForeignKeyConstraintViolationException')
    return badRequest(ErrorCode.unknownId, 'the change refers to a record that does not exist');
  return new HttpError(500, ErrorCode.internal, 'internal error');
}
