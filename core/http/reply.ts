import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { ErrorCode, HttpError } from '../errors';
import { PreparedJson, stringifyAscii } from './json';

/**
 * What a route returns when its answer is not a JSON value under the response cap: a body
 * of another media type (Prometheus' text), JSON a caller needs whole however large (a
 * fleet's targets), or a body written as it goes (a file, an event stream). Core writes it
 * like any other answer, with the headers every answer carries (X-Sequence); capped unless
 * said otherwise.
 */
export class Reply {
  private constructor(
    readonly type: string,
    readonly body: string,
    readonly uncapped: boolean,
    readonly status = 200,
    readonly headers: Readonly<OutgoingHttpHeaders> = {},
    readonly write?: (res: ServerResponse) => void,
  ) {}

  /**
   * A body core does not hold: once the head is out (`status`, `headers` and those every
   * answer carries), `write` writes the rest on the answer itself (a file's bytes, an event
   * stream that stays open) and ends it.
   */
  static stream(status: number, headers: OutgoingHttpHeaders, write: (res: ServerResponse) => void): Reply {
    return new Reply('', '', true, status, headers, write);
  }

  /** `status` and `headers`: a refusal whose body a machine runs as it is (a script), not JSON. */
  static text(body: string, type: string, options: { uncapped?: boolean; status?: number; headers?: Record<string, string> } = {}): Reply {
    return new Reply(type, body, options.uncapped ?? false, options.status, options.headers);
  }

  /** JSON escaped as every answer is; `uncapped` for answers that grow with the fleet. */
  static json(value: unknown, options: { uncapped?: boolean } = {}): Reply {
    return new Reply('application/json', stringifyAscii(value), options.uncapped ?? false);
  }

  /** Send the browser on to `location` (302: a sign-in's steps through an identity provider). */
  static redirect(location: string): Reply {
    return new Reply('text/plain; charset=utf-8', `See ${location}\n`, false, 302, { Location: location, 'Cache-Control': 'no-store' });
  }
}

/** The headers every answer carries: the client's X-Sequence, echoed (the reference's consoles match answers by it). */
export function commonHeaders(req: IncomingMessage): Record<string, string> {
  const value = req.headers['x-sequence'];
  return typeof value === 'string' ? { 'X-Sequence': value } : {};
}

/** A handler's result, written: a Reply as it says, anything else as capped JSON. */
export function respond(req: IncomingMessage, res: ServerResponse, result: unknown, maxBytes: number): void {
  const headers = commonHeaders(req);
  if (!(result instanceof Reply)) {
    sendJson(res, 200, result ?? {}, maxBytes, headers);
    return;
  }
  if (result.write) {
    res.writeHead(result.status, { ...headers, ...result.headers });
    result.write(res);
    return;
  }
  const length = Buffer.byteLength(result.body);
  if (!result.uncapped && length > maxBytes) {
    sendError(res, new HttpError(500, ErrorCode.responseTooLarge, `the response would exceed ${maxBytes} bytes`), maxBytes, headers);
    return;
  }
  if (res.headersSent || res.writableEnded) return;
  res.writeHead(result.status, { ...headers, ...result.headers, 'Content-Type': result.type, 'Content-Length': String(length) });
  res.end(result.body);
}

/**
 * The single place where response bodies are written: every success and error goes
 * through here, so the ASCII escaping and the response cap apply to all of them.
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  payload: unknown,
  maxBytes: number,
  headers: Record<string, string> = {},
): void {
  // A prepared answer is sent again and again: its bytes are encoded once.
  let body: string | Buffer = payload instanceof PreparedJson ? payload.bytes : stringifyAscii(payload);
  if (body.length > maxBytes) {
    // ASCII-only, so characters equal bytes. A capped answer is a 500 with no partial body.
    status = 500;
    body = stringifyAscii(new HttpError(500, ErrorCode.responseTooLarge, `the response would exceed ${maxBytes} bytes`).toJSON());
  }
  if (res.headersSent || res.writableEnded) return;
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(body.length) });
  res.end(body);
}

export function sendError(res: ServerResponse, error: HttpError, maxBytes: number, headers: Record<string, string> = {}): void {
  sendJson(res, error.status, error.toJSON(), maxBytes, headers);
}
