import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../log';

/**
 * The requests a REST listener is answering, so that a stop can let them finish: a
 * cascade that committed is answered rather than cut off with its connection.
 */
export class InFlight {
  private readonly open = new Set<ServerResponse>();
  private readonly streams = new Set<ServerResponse>();
  /**
   * Every connection, HTTP's and those Node hands over (a CONNECT's socket): the server's
   * `closeAllConnections` knows only the first, and one half-open socket of the second kind
   * kept a stopped service waiting for its close for ever.
   */
  private readonly sockets = new Set<Socket>();
  private closing = false;
  private idle?: () => void;

  /** Count the connections of `server` from their start. */
  watch(server: Server): void {
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  begin(res: ServerResponse): void {
    this.open.add(res);
    // Once stopping, every answer closes its connection: a keep-alive client goes elsewhere.
    if (this.closing) res.setHeader('Connection', 'close');
  }

  /** Its connection is done with it (its exchange closed). */
  done(res: ServerResponse): void {
    this.open.delete(res);
    this.streams.delete(res);
    if (this.open.size === 0) this.idle?.();
  }

  /**
   * An answer that stays open (an event stream): a stop ends it at once rather than waiting.
   * So does the client closing its side: the server answers a request whose client has
   * half-closed, but a browser leaving a stream sends just that, and is gone.
   */
  stream(res: ServerResponse): void {
    res.socket?.once('end', () => res.destroy());
    this.open.delete(res);
    this.streams.add(res);
    if (this.open.size === 0) this.idle?.();
  }

  /**
   * Stop accepting connections, wait up to `graceMs` for the requests in flight, then close
   * every connection left. Resolves with how many requests were cut off.
   */
  async close(server: Server, graceMs: number, log: Logger): Promise<number> {
    this.closing = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    for (const res of this.streams) res.end();
    for (const res of this.open) if (!res.headersSent) res.setHeader('Connection', 'close');
    if (this.open.size > 0) {
      log.info(
        { requests: this.open.size, grace_s: graceMs / 1000 },
        `waiting up to ${graceMs / 1000} s for ${this.open.size} request(s) in flight`,
      );
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.idle = resolve;
        timer = setTimeout(resolve, graceMs);
      });
      clearTimeout(timer);
    }
    const cut = this.open.size;
    if (cut > 0) log.warn({ requests: cut }, `${cut} request(s) still running after rest.shutdown_grace_s; connections closed`);
    server.closeAllConnections();
    for (const socket of this.sockets) socket.destroy();
    await closed;
    return cut;
  }
}
