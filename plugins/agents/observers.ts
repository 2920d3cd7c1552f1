import type { IncomingMessage } from 'node:http';
import type { Access, Logger } from 'ogserve';
import type { Dispatch } from './types';

/** Who asked for a command: a key, token or person (their access name and source), or a plugin's own work ('scheduler'). */
export interface Asker {
  name: string;
  source: string;
  /** The REST request that asked, when one did: what follows the command is tied to it (its audit entry). */
  request?: IncomingMessage;
}

/** Who asked, from a route's `access` and its request (undefined on a route without access). */
export function askerOf(access: Access | undefined, request?: IncomingMessage): Asker | undefined {
  return access ? { name: access.name, source: access.source ?? 'key', request } : undefined;
}

/** What a caller on the command path says of a dispatch besides its clients. */
export interface DispatchOrigin {
  /** The agent path, e.g. 'image/restore'. */
  kind: string;
  /** What was asked besides the clients (a REST body's params, a queued step's). */
  params: object;
  asker?: Asker;
}

/** A dispatch as observers hear it: every client was sent the command, or found busy or not connected. */
export interface ObservedDispatch extends DispatchOrigin, Dispatch {
  /** The agent answers this command by closing its connection (stop): that disconnect is its success. */
  endsWithDisconnect: boolean;
}

/**
 * Hears each command sent on the command path (`sendCommand`, `dispatchEach`) and may answer
 * an id that the caller's answer then carries (`job`, the jobs plugin's). It is called as the
 * dispatch returns, and the caller goes on at once (what it sets up for the answers is not
 * delayed); only its REST answer waits for the id. A failure is logged and gives no id.
 */
export type DispatchObserver = (dispatch: ObservedDispatch) => Promise<number | undefined>;

/**
 * The seam through which another plugin follows the commands sent to agents without the
 * agents plugin knowing it (the jobs plugin registers here): `AgentLink.observers`.
 */
export class DispatchObservers {
  private readonly observers: DispatchObserver[] = [];

  constructor(
    private readonly endsWithDisconnect: (path: string) => boolean,
    private readonly log: Logger,
  ) {}

  observe(observer: DispatchObserver): void {
    this.observers.push(observer);
  }

  /** Tell every observer; resolves with the first id one answers, and never rejects (callers may not wait for it). */
  async observed(origin: DispatchOrigin, dispatch: Dispatch): Promise<number | undefined> {
    let id: number | undefined;
    const seen = { ...origin, ...dispatch, endsWithDisconnect: this.endsWithDisconnect(origin.kind) };
    for (const observer of this.observers) {
      try {
        id ??= await observer(seen);
      } catch (error) {
        this.log.error({ err: error, command: origin.kind }, 'a dispatch observer failed');
      }
    }
    return id;
  }
}
