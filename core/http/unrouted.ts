import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type net from 'node:net';
import type { Duplex } from 'node:stream';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Requests Node's HTTP server does not hand to the request listener: CONNECT (emitted as
 * 'connect', the socket closed when nobody listens) and methods its parser does not know
 * ('clientError', answered with a bare 400). Both go through the ordinary listener, so
 * they get the same checks and answers as any other method (401 first, then 404 or 405),
 * then the connection is closed: its parser cannot read another request.
 */
export function answerUnroutedRequests(server: http.Server, listener: Listener): void {
  server.on('connect', (req: IncomingMessage, duplex: Duplex) => {
    req.push(null); // a CONNECT carries no body the service reads
    answerOnSocket(req, tcpSocket(duplex), listener);
  });
  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, duplex: Duplex) => {
    const socket = tcpSocket(duplex);
    // Bytes right behind a whole request still being answered on this connection (a GET's
    // body sent without a length): that answer goes out, then the connection closes, as its
    // parser cannot read on. Answering these bytes too made Node throw, and the process stop.
    // A request cut short is not whole: it gets Node's answer below, as its handler waits on.
    const answering = socket._httpMessage;
    if (answering?.req.complete) return void answering.once('finish', () => socket.destroySoon());
    const req = error.code === 'HPE_INVALID_METHOD' && error.rawPacket ? requestFromBytes(error.rawPacket, socket) : undefined;
    if (req) return answerOnSocket(req, socket, listener);
    // Anything else gets what Node answers when nobody listens for client errors.
    const status = bareStatus.get(error.code ?? '') ?? '400 Bad Request';
    if (socket.writable && socket.bytesWritten === 0) socket.write(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
    socket.destroy();
  });
}

/**
 * An http.Server over TCP hands these events its net.Socket; Node's types say only Duplex,
 * and do not show the answer the server has assigned to it, if any.
 */
function tcpSocket(duplex: Duplex): net.Socket & { _httpMessage?: ServerResponse | null } {
  return duplex as net.Socket;
}

/** Node's answers to the parser errors that are no 400. */
const bareStatus = new Map([
  ['HPE_HEADER_OVERFLOW', '431 Request Header Fields Too Large'],
  ['HPE_CHUNK_EXTENSIONS_OVERFLOW', '413 Payload Too Large'],
  ['ERR_HTTP_REQUEST_TIMEOUT', '408 Request Timeout'],
]);

function answerOnSocket(req: IncomingMessage, socket: net.Socket, listener: Listener): void {
  const res = new http.ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket);
  res.once('finish', () => {
    res.detachSocket(socket);
    socket.end();
    // What Node's server does for its own responses: the answer is over ('close' tells the
    // request log and the count of requests in flight).
    process.nextTick(() => res.emit('close'));
  });
  listener(req, res);
}

/**
 * The request line and headers of a request whose method the parser refused, read from
 * the bytes it had received. Headers not received yet count as absent (no Authorization: 401).
 */
function requestFromBytes(bytes: Buffer, socket: net.Socket): IncomingMessage | undefined {
  const text = bytes.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  const lines = (end >= 0 ? text.slice(0, end) : text).split('\r\n');
  const line = /^([!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}) (\S{1,8192}) HTTP\/1\.[01]$/.exec(lines[0] ?? '');
  if (!line) return undefined;
  const req = new http.IncomingMessage(socket);
  req.method = line[1]!;
  req.url = line[2]!;
  for (const header of lines.slice(1)) {
    const colon = header.indexOf(':');
    if (colon <= 0) continue;
    const name = header.slice(0, colon).trim().toLowerCase();
    if (!(name in req.headers)) req.headers[name] = header.slice(colon + 1).trim();
  }
  req.push(null);
  return req;
}
