import type { Access } from 'ogserve';
import type { Dispatch } from './types';

/** Who asked for a command: a key, token or person (their access name and source), or a plugin's own work ('scheduler'). */
export interface Asker {
  name: string;
  source: string;
}

/** Who asked, from a route's `access` (undefined on a route without one). */
export function askerOf(access: Access | undefined): Asker | undefined {
  return access ? { name: access.name, source: access.source ?? 'key' } : undefined;
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
 * an id that the caller's answer then carries (`job`, the jobs plugin's). It must not throw:
 * the command is already on its way, and the caller's answer says so.
 */
export type DispatchObserver = (dispatch: ObservedDispatch) => Promise<number | undefined>;

/**
 * The seam through which another plugin follows the commands sent to agents without the
 * agents plugin knowing it (the jobs plugin registers here): `AgentLink.observers`.
 */
export class DispatchObservers {
  private readonly observers: DispatchObserver[] = [];

  constructor(private readonly endsWithDisconnect: (path: string) => boolean) {}

  observe(observer: DispatchObserver): void {
    this.observers.push(observer);
  }

  /** Tell every observer; the first id one answers. */
  async observed(origin: DispatchOrigin, dispatch: Dispatch): Promise<number | undefined> {
    let id: number | undefined;
    const seen = { ...origin, ...dispatch, endsWithDisconnect: this.endsWithDisconnect(origin.kind) };
    for (const observer of this.observers) id ??= await observer(seen);
    return id;
  }
}
