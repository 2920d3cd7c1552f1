import type { IncomingMessage, ServerResponse } from 'node:http';
import getRawBody from 'raw-body';
import type { Access } from '../access';
import type { Database } from '../database';
import { ErrorCode, HttpError, badRequest } from '../errors';
import type { Logger } from '../log';
import { InvalidUtf8Error, bodyText } from './body-text';
import type { RequestHooks } from './hooks';
import { JsonDepthError, JsonSyntaxError, LoneSurrogateError, NulCharacterError, parseJson } from './json';
import type { RequestOrigin } from './origin';
import { respond } from './reply';
import type { Exchange } from './exchange';
import { RequestContext, type Route } from './routes';

/** What handling a routed request needs of the listener's options. */
export interface HandleOptions {
  maxRequestBytes: number;
  maxResponseBytes: number;
  maxJsonDepth: number;
  db: Database;
  log: Logger;
  hooks: RequestHooks;
  /** Where a request really comes from (rest.trusted_proxies). */
  origin(req: IncomingMessage): RequestOrigin;
}

const noBody = Symbol('no body');

/**
 * A request that passed authorization and routing: the onRequest hooks, body size (413),
 * JSON syntax (400), scope, schema (400), the preHandler hooks, the handler, the answer.
 */
export async function handle(
  route: Route,
  req: IncomingMessage,
  res: ServerResponse,
  access: Access | undefined,
  options: HandleOptions,
  exchange: Exchange,
): Promise<void> {
  const arriving = options.hooks.arrived({ route, req, res, access });
  if (arriving) await arriving;
  let body: unknown = noBody;
  let clients: string[] = [];
  if (route.policy !== 'ignored') {
    const raw = await readBody(req, options.maxRequestBytes);
    if (raw.length > 0) {
      if (route.policy === 'forbidden') throw badRequest(ErrorCode.bodyNotAllowed, `${route.method} ${route.path} takes no request body`);
      body = parseBody(decodeBody(raw), options.maxJsonDepth);
      // One reading of the clients the body names, where the route says it names them: the
      // request log, the onResponse hooks (the audit trail) and the scope check see the same.
      if (route.clientsOf) clients = route.clientsOf(body);
      exchange.body = body;
      exchange.clients = clients;
    }
  }
  if (body === noBody) {
    if (route.policy === 'required') throw badRequest(ErrorCode.bodyRequired, `${route.method} ${route.path} needs a JSON body`);
    body = route.policy === 'optional' ? {} : undefined;
  }
  // Before the schema: a client outside a limited key's scope is refused whatever else is wrong.
  if (access?.scope && route.scoped === 'clients') {
    const [outside] = await access.scope.outside(clients);
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
  const ctx = new RequestContext(route, req, res, body, options.log, options.db, access, options.origin);
  await options.hooks.beforeHandler(ctx);
  if (route.preHandler) await route.preHandler(ctx);
  const result = await route.handler(ctx);
  // Every answer leaves through respond: one a handler wrote itself skipped what it adds.
  if (res.headersSent)
    return void options.log.warn(
      { request: `${route.method} ${route.path}` },
      `the handler of ${route.method} ${route.path} wrote its answer itself instead of returning it (a Reply)`,
    );
  await options.hooks.beforeSend(ctx, result);
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

export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  const name = (error as { name?: string })?.name ?? '';
  if (name === 'UniqueConstraintViolationException') return badRequest(ErrorCode.duplicate, 'the change would duplicate a unique value');
  if (name === 'ForeignKeyConstraintViolationException')
    return badRequest(ErrorCode.unknownId, 'the change refers to a record that does not exist');
  return new HttpError(500, ErrorCode.internal, 'internal error');
}
