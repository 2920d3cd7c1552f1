import type { ServerResponse } from 'node:http';
import { ErrorCode, HttpError } from '../errors';
import { PreparedJson, stringifyAscii } from './json';

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
