import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Access } from '../access';
import type { Logger } from '../log';
import type { Route } from './routes';

/** One request to an audited route (core/http/routes.ts `audit`), once it was answered or cut off. */
export interface Action {
  /** When it arrived. */
  time: Date;
  /** The key's or token's name; never a secret. */
  token: string;
  /** The source address, without the IPv4-mapped prefix. */
  address: string;
  method: string;
  /** As sent, without the query. */
  path: string;
  /** The client addresses its body named. */
  clients: string[];
  /** Undefined when the connection closed before the answer was sent. */
  status?: number;
  ms: number;
}

export type ActionObserver = (action: Action) => void;

/** The client lists of a request body: `clients`, or the `client` list of per-client reads. */
export function clientLists(body: unknown): string[] {
  if (typeof body !== 'object' || body === null) return [];
  const record = body as { clients?: unknown; client?: unknown };
  const list = Array.isArray(record.clients) ? record.clients : Array.isArray(record.client) ? record.client : [];
  return list.filter((c): c is string => typeof c === 'string');
}

/**
 * Every client a request body names, in any of the fields routes read addresses from: the
 * `ip` of a single client's record, `clients` and `client`.
 */
export function clientsNamed(body: unknown): string[] {
  if (typeof body !== 'object' || body === null) return [];
  const { ip, clients, client } = body as { ip?: unknown; clients?: unknown; client?: unknown };
  const named = [ip, ...(Array.isArray(clients) ? clients : []), ...(Array.isArray(client) ? client : [])];
  return [...new Set(named.filter((c): c is string => typeof c === 'string'))];
}

/** Hands every audited request to the observers once its answer is out (refusals included). */
export class ActionTrail {
  private readonly clients = new WeakMap<IncomingMessage, string[]>();

  constructor(
    private readonly observers: readonly ActionObserver[],
    private readonly log: Logger,
  ) {}

  get enabled(): boolean {
    return this.observers.length > 0;
  }

  begin(route: Route, req: IncomingMessage, res: ServerResponse, access: Access | undefined): void {
    if (!route.audit || !this.enabled) return;
    const time = new Date();
    const started = process.hrtime.bigint();
    let done = false;
    const finish = (answered: boolean): void => {
      if (done) return;
      done = true;
      const action: Action = {
        time,
        token: access?.name ?? '',
        address: (req.socket.remoteAddress ?? '').replace(/^::ffff:/, ''),
        method: route.method,
        path: (req.url ?? '').split('?')[0]!,
        clients: this.clients.get(req) ?? [],
        status: answered ? res.statusCode : undefined,
        ms: Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10,
      };
      for (const observe of this.observers) {
        try {
          observe(action);
        } catch (error) {
          this.log.error({ err: error, method: action.method, path: action.path }, 'an action observer failed');
        }
      }
    };
    res.once('prefinish', () => finish(true));
    res.once('close', () => finish(res.writableFinished));
  }

  noteBody(route: Route, req: IncomingMessage, body: unknown): void {
    if (route.audit && this.enabled) this.clients.set(req, clientsNamed(body));
  }
}
