import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../log';

interface Entry {
  started: bigint;
  clients: string[];
}

/**
 * The request log: one line per request, written once its answer is sent (or its
 * connection closed first), refused requests included:
 * `<source ip>:<port> <METHOD> /<path> clients=<ip>,<ip> status=<code> ms=<duration>`.
 * The routes consoles poll (`log: false`) are left out.
 */
export class RequestLog {
  private readonly entries = new WeakMap<IncomingMessage, Entry>();

  constructor(
    private readonly log: Logger,
    private readonly unlogged: ReadonlySet<string>,
  ) {}

  begin(req: IncomingMessage, res: ServerResponse): void {
    // Below info nothing would be written: no timing, no listeners, no source address.
    if (!this.log.isLevelEnabled('info')) return;
    const method = req.method ?? '';
    const path = (req.url ?? '').split('?')[0]!;
    if (this.unlogged.has(`${method} ${path}`)) return;
    const entry: Entry = { started: process.hrtime.bigint(), clients: [] };
    this.entries.set(req, entry);
    let written = false;
    let answered = false;
    const write = (): void => {
      if (written) return;
      written = true;
      const ms = Math.round(Number(process.hrtime.bigint() - entry.started) / 1e5) / 10;
      const status = answered ? String(res.statusCode) : 'aborted';
      const source = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
      this.log.info(
        { status: answered ? res.statusCode : undefined, ms },
        `${source}:${req.socket.remotePort} ${method} ${path} clients=${entry.clients.join(',')} status=${status} ms=${ms}`,
      );
    };
    // 'prefinish': the whole answer has been handed to the socket (end() was called), so the
    // line is in the log before the client can have read the answer.
    res.once('prefinish', () => {
      answered = true;
      write();
    });
    res.once('close', write);
  }

  /** The clients a request's body names, where its route says it names them. */
  noteClients(req: IncomingMessage, clients: string[]): void {
    const entry = this.entries.get(req);
    if (entry) entry.clients = clients;
  }
}
