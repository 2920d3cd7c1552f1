import type { Logger } from './log';

/**
 * The events plugins announce after something happened (committed, sent, connected). Each
 * plugin adds its own by declaration merging, so names and payloads are checked:
 *
 *   declare module 'ogserve' { interface EventMap { 'hello.said': { to: string } } }
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging in plugins
export interface EventMap {}

export type EventName = keyof EventMap & string;
type Listener<P> = (payload: P) => void | Promise<void>;
type AnyListener = (name: string, payload: object) => void;

/** A listener that threw or rejected: reported to whoever emitted, so a caller can say so. */
export interface ListenerFailure {
  event: string;
  owner: string;
  error: Error;
}

/**
 * The bus between plugins. `emit` runs every listener of the event (a failing one does not
 * stop the others), logs and counts each failure, and resolves with the failures so the
 * emitter can put them in its answer when its caller must know (a boot file not written).
 */
export class EventBus {
  private readonly listeners = new Map<string, { owner: string; fn: Listener<unknown> }[]>();
  private readonly anyListeners: AnyListener[] = [];
  /** Listener failures since start, for metrics. */
  failures = 0;

  constructor(private readonly log: Logger) {}

  on<K extends EventName>(owner: string, name: K, fn: Listener<EventMap[K]>): void {
    const list = this.listeners.get(name) ?? [];
    list.push({ owner, fn: fn as Listener<unknown> });
    this.listeners.set(name, list);
  }

  /** Hear every event, with its name (a stream that forwards them all); must not throw or wait. */
  onAny(fn: AnyListener): void {
    this.anyListeners.push(fn);
  }

  async emit<K extends EventName>(name: K, payload: EventMap[K], log: Logger = this.log): Promise<ListenerFailure[]> {
    for (const fn of this.anyListeners) fn(name, payload as object);
    const list = this.listeners.get(name);
    if (!list) return [];
    const failed: ListenerFailure[] = [];
    for (const { owner, fn } of list) {
      try {
        await fn(payload);
      } catch (caught) {
        const error = caught instanceof Error ? caught : new Error(String(caught));
        failed.push({ event: name, owner, error });
        this.failures++;
        log.error({ err: error, event: name, plugin: owner }, `${owner}: handling ${name} failed: ${error.message}`);
      }
    }
    return failed;
  }

  /** The bus as one plugin sees it: what it listens to is reported under its name. */
  forPlugin(owner: string): PluginEvents {
    return {
      on: (name, fn) => this.on(owner, name, fn),
      onAny: (fn) => this.onAny(fn),
      emit: (name, payload, log) => this.emit(name, payload, log),
    };
  }
}

export interface PluginEvents {
  on<K extends EventName>(name: K, fn: Listener<EventMap[K]>): void;
  onAny(fn: AnyListener): void;
  /** Tell every listener; `log` is the request's logger when a request caused it. */
  emit<K extends EventName>(name: K, payload: EventMap[K], log?: Logger): Promise<ListenerFailure[]>;
}
