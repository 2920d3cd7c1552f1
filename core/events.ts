import type { Logger } from './log';

/**
 * The events plugins announce after something happened (committed, sent, connected); the
 * events stream and webhooks pass every one of them on. Each plugin adds its own by
 * declaration merging, so names and payloads are checked:
 *
 *   declare module 'ogserve' { interface EventMap { 'hello.said': { to: string } } }
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging in plugins
export interface EventMap {}

/**
 * Events between plugins only, never streamed: their payloads are the plugins' own records
 * (a saved client with everything it holds), not what the outside is shown.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging in plugins
export interface InternalEventMap {}

/**
 * Hooks run before a change is written: any one may refuse it by throwing (an HttpError
 * naming the field), which stops the request with nothing written.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging in plugins
export interface HookMap {}

export type EventName = keyof EventMap & string;
export type InternalEventName = keyof InternalEventMap & string;
export type HookName = keyof HookMap & string;
type AllEvents = EventMap & InternalEventMap;
type Listener<P> = (payload: P) => void | Promise<void>;
type AnyListener = (name: string, payload: object) => void;

/** A listener that threw or rejected: reported to whoever emitted, so a caller can say so. */
export interface ListenerFailure {
  event: string;
  owner: string;
  /** What the listener does ("write the boot files"), when it said. */
  task?: string;
  error: Error;
}

interface Registered {
  owner: string;
  fn: Listener<unknown>;
  task?: string;
}

/**
 * The bus between plugins. Delivering an event runs every listener of it (a failing one does
 * not stop the others), logs each failure with the request's logger, counts it, and resolves
 * with the failures so the emitter can put them in its answer when its caller must know
 * (a boot file not written). A hook runs each in turn and the first refusal propagates.
 */
export class EventBus {
  private readonly listeners = new Map<string, Registered[]>();
  private readonly hooks = new Map<string, Listener<unknown>[]>();
  private readonly anyListeners: AnyListener[] = [];
  /** Listener failures since start, for metrics. */
  failures = 0;

  constructor(private readonly log: Logger) {}

  on<K extends keyof AllEvents & string>(owner: string, name: K, fn: Listener<AllEvents[K]>, task?: string): void {
    const list = this.listeners.get(name) ?? [];
    list.push({ owner, fn: fn as Listener<unknown>, task });
    this.listeners.set(name, list);
  }

  /** Hear every announced event, with its name (a stream that forwards them all); must not throw or wait. */
  onAny(fn: AnyListener): void {
    this.anyListeners.push(fn);
  }

  hook<K extends HookName>(name: K, fn: Listener<HookMap[K]>): void {
    this.hooks.set(name, [...(this.hooks.get(name) ?? []), fn as Listener<unknown>]);
  }

  /** Every hook of `name` in turn; the first refusal rejects, and later hooks do not run. */
  async check<K extends HookName>(name: K, payload: HookMap[K]): Promise<void> {
    for (const fn of this.hooks.get(name) ?? []) await fn(payload);
  }

  /** Announce: every `onAny` listener hears it, then the listeners of `name`. */
  emit<K extends EventName>(name: K, payload: EventMap[K], log: Logger = this.log): Promise<ListenerFailure[]> {
    for (const fn of this.anyListeners) fn(name, payload as object);
    return this.deliver(name, payload, log);
  }

  /** Tell the listeners of an internal event; nothing is streamed. */
  tell<K extends InternalEventName>(name: K, payload: InternalEventMap[K], log: Logger = this.log): Promise<ListenerFailure[]> {
    return this.deliver(name, payload, log);
  }

  private async deliver(name: string, payload: unknown, log: Logger): Promise<ListenerFailure[]> {
    const list = this.listeners.get(name);
    if (!list) return [];
    const failed: ListenerFailure[] = [];
    for (const { owner, fn, task } of list) {
      try {
        await fn(payload);
      } catch (caught) {
        const error = caught instanceof Error ? caught : new Error(String(caught));
        failed.push({ event: name, owner, task, error });
        this.failures++;
        const doing = task ? `could not ${task}` : `handling ${name} failed`;
        log.error({ err: error, event: name, plugin: owner }, `${owner}: ${doing}: ${error.message}`);
      }
    }
    return failed;
  }

  /** The bus as one plugin sees it: what it listens to is reported under its name. */
  forPlugin(owner: string): PluginEvents {
    return {
      on: (name, fn, task) => this.on(owner, name, fn, task),
      onAny: (fn) => this.onAny(fn),
      hook: (name, fn) => this.hook(name, fn),
      check: (name, payload) => this.check(name, payload),
      emit: (name, payload, log) => this.emit(name, payload, log),
      tell: (name, payload, log) => this.tell(name, payload, log),
      heard: (name) => (this.listeners.get(name)?.length ?? 0) > 0,
    };
  }
}

export interface PluginEvents {
  /** `task` says what the listener does ("write the boot files"), for the failure's report. */
  on<K extends keyof AllEvents & string>(name: K, fn: Listener<AllEvents[K]>, task?: string): void;
  onAny(fn: AnyListener): void;
  /** Run before a change of `name` is written; throw to refuse it. */
  hook<K extends HookName>(name: K, fn: Listener<HookMap[K]>): void;
  check<K extends HookName>(name: K, payload: HookMap[K]): Promise<void>;
  /** Announce to every listener and to the stream; `log` is the request's logger when a request caused it. */
  emit<K extends EventName>(name: K, payload: EventMap[K], log?: Logger): Promise<ListenerFailure[]>;
  /** Tell the listeners of an internal event. */
  tell<K extends InternalEventName>(name: K, payload: InternalEventMap[K], log?: Logger): Promise<ListenerFailure[]>;
  /** Whether any plugin listens to `name` (ask once every plugin registered: work nobody hears can be skipped). */
  heard(name: keyof AllEvents & string): boolean;
}
