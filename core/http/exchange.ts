import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Access } from '../access';
import type { Answered } from './hooks';
import type { Route } from './routes';

const none: readonly string[] = [];

/**
 * One request from its arrival to its end, observed once: when its answer is handed to the
 * socket ('prefinish', so that what is told comes before the client can read the answer) or
 * its connection closes first, `answered` is told what it was (the request log, then the
 * plugins' onResponse hooks); when its connection is done, `closed` (the requests in flight).
 */
export class Exchange {
  route?: Readonly<Route>;
  access?: Access;
  body?: unknown;
  /** The clients its body names, where its route says it names them. */
  clients: readonly string[] = none;
  readonly time = new Date();
  private readonly started = process.hrtime.bigint();
  private told = false;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    answered: (answered: Answered) => void,
    closed: (exchange: Exchange) => void,
  ) {
    const tell = (status: number | undefined): void => {
      if (this.told) return;
      this.told = true;
      const ms = Math.round(Number(process.hrtime.bigint() - this.started) / 1e5) / 10;
      const { route, access, body, clients, time } = this;
      answered({ route, req, access, body, clients, time, status, ms });
    };
    res.once('prefinish', () => tell(res.statusCode));
    res.once('close', () => {
      tell(res.writableFinished ? res.statusCode : undefined);
      closed(this);
    });
  }
}
