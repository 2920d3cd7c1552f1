import assert from 'node:assert/strict';
import net from 'node:net';
import zlib from 'node:zlib';
import { pythonJson, within } from '../support/fake-agent';
import { TOKEN } from '../support/server';

/**
 * The REST calls of ogCLI and ogCP as they reach the wire: both call `requests.get` or
 * `requests.post(url, headers={'Authorization': key}, json=payload)` once per call, so each
 * call is a fresh TCP connection carrying python-requests' default headers (it says
 * keep-alive, then drops the connection with its one-shot Session), the raw key, and for a
 * payload `json.dumps` bytes with Content-Length and Content-Type after the other headers.
 * Without a payload there is no body and no Content-Type, and a GET has no Content-Length.
 */

export const userAgent = 'python-requests/2.31.0';

export interface PythonReply {
  status: number;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  text: string;
  /** `r.json()`: the parsed body, or undefined when it is not JSON. */
  json: any;
}

/** The exact bytes requests sends for `requests.<method>(http://127.0.0.1:<port><path>, headers=..., json=payload)`. */
export function requestBytes(port: number, method: 'GET' | 'POST', path: string, payload?: unknown, key = TOKEN): string {
  const body = payload === undefined ? '' : pythonJson(payload);
  const lines = [
    `${method} ${path} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    `User-Agent: ${userAgent}`,
    'Accept-Encoding: gzip, deflate',
    'Accept: */*',
    'Connection: keep-alive',
    `Authorization: ${key}`,
  ];
  // requests sets Content-Length: 0 for a body-less POST, and nothing for a body-less GET.
  if (payload !== undefined) lines.push(`Content-Length: ${Buffer.byteLength(body)}`, 'Content-Type: application/json');
  else if (method === 'POST') lines.push('Content-Length: 0');
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** One Python client pointed at a server, as ogcli.json or ogCP's SERVERS entry configures it. */
export class PythonClient {
  constructor(
    readonly port: number,
    readonly key = TOKEN,
  ) {}

  /** `OgREST.get` / `OGServer.get`: the payload, if any, goes as a JSON body even on GET. */
  get(path: string, payload?: unknown): Promise<PythonReply> {
    return exchange(this.port, requestBytes(this.port, 'GET', path, payload, this.key));
  }

  post(path: string, payload: unknown): Promise<PythonReply> {
    return exchange(this.port, requestBytes(this.port, 'POST', path, payload, this.key));
  }

  /**
   * A GET whose answer the clients use: ogCLI exits on any status but 200, ogCP parses the
   * body straight away (multi-server reads drop the server on >= 400), so 200 and a JSON object.
   */
  async read(path: string, payload?: unknown): Promise<any> {
    const r = await this.get(path, payload);
    const sent = payload === undefined ? '' : ` ${pythonJson(payload)}`;
    assert.equal(r.status, 200, `GET ${path}${sent}: ${r.status} ${r.text}`);
    assert.ok(
      r.json !== null && typeof r.json === 'object' && !Array.isArray(r.json),
      `GET ${path}${sent} answers a JSON object: ${r.text}`,
    );
    return r.json;
  }
}

/** Send one request on its own connection, read one response as urllib3 frames it, close. */
function exchange(port: number, request: string): Promise<PythonReply> {
  const socket = net.connect({ host: '127.0.0.1', port });
  const reply = new Promise<PythonReply>((resolve, reject) => {
    let received = Buffer.alloc(0);
    const tryParse = (ended: boolean) => {
      const parsed = parseResponse(received, ended);
      if (parsed) resolve(parsed);
      else if (ended) reject(new Error(`connection closed before a complete response: ${JSON.stringify(received.toString('latin1'))}`));
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      try {
        tryParse(false);
      } catch (error) {
        reject(error);
      }
    });
    socket.on('end', () => {
      try {
        tryParse(true);
      } catch (error) {
        reject(error);
      }
    });
    socket.on('error', reject);
  });
  socket.write(request, 'latin1');
  return within(reply, 10_000, `response to ${request.split('\r\n')[0]}`).finally(() => socket.destroy());
}

/**
 * A complete response in `data`, or undefined while more is needed. A keep-alive response
 * must be framed (Content-Length or chunked): requests would otherwise wait for the server
 * to close the connection.
 */
function parseResponse(data: Buffer, ended: boolean): PythonReply | undefined {
  const headEnd = data.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const [statusLine = '', ...headerLines] = data.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!status) throw new Error(`not an HTTP response: ${statusLine}`);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = data.subarray(headEnd + 4);
  let body: Buffer | undefined;
  if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    if (rest.length >= length) body = rest.subarray(0, length);
  } else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    body = dechunk(rest);
  } else if (headers.connection?.toLowerCase() === 'close') {
    if (ended) body = rest;
  } else {
    throw new Error('an unframed keep-alive response: requests would wait until the server closes the connection');
  }
  if (!body) return undefined;
  const encoding = headers['content-encoding'];
  const decoded = encoding === 'gzip' ? zlib.gunzipSync(body) : encoding === 'deflate' ? zlib.inflateSync(body) : body;
  const text = decoded.toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: Number(status[1]), headers, text, json };
}

/** The body of a complete chunked stream, or undefined while it is not complete. */
function dechunk(data: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (size === 0) return data.indexOf('\r\n\r\n', lineEnd) === lineEnd ? Buffer.concat(parts) : undefined;
    if (data.length < lineEnd + 2 + size + 2) return undefined;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
