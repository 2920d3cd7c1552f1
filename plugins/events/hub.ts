import type { ServerResponse } from 'node:http';
import { inject, injectable, PluginConfig } from 'ogserve';
import { EventLog, type FleetEvent } from './event-log';
import type { EventFilter } from './filter';
import type { Reader } from './reader';
import type { EventsSettings } from './schemas';
import { type StallLimits, Subscriber, sseFrame } from './subscriber';

export interface HubSettings {
  bufferSize: number;
  maxSubscribers: number;
  stall: StallLimits;
  /** Events are written to readers in batches this often (0: after each turn of the event loop). */
  flushMs: number;
}

export interface HubFigures {
  published: number;
  /** Subscribers dropped because they stopped reading. */
  stalled: number;
}

/**
 * The fleet's event stream: every event gets the next id, is kept in the resume buffer and
 * is written to each subscriber whose filter takes it, and handed to in-process listeners
 * (webhooks, audit). Publishing never waits on a reader.
 */
@injectable()
export class EventHub {
  private readonly log: EventLog;
  private readonly subscribers = new Set<Subscriber>();
  private readonly listeners: ((event: FleetEvent) => void)[] = [];
  /** Subscribers with frames queued for them alone since the last flush. */
  private readonly unflushed = new Set<Subscriber>();
  /** Readers of every event: they share `batch`, encoded once per flush. */
  private readonly everyone = new Set<Subscriber>();
  private batch: string[] = [];
  /** The events of `batch`, and their types: a reader whose rights miss one gets its own copy. */
  private batchEvents: FleetEvent[] = [];
  private batchTypes = new Set<string>();
  /** Where in `batch` a reader of every event that joined since the last flush starts. */
  private readonly joinedAt = new Map<Subscriber, number>();
  private flushScheduled = false;
  readonly figures: HubFigures = { published: 0, stalled: 0 };

  private readonly settings: HubSettings;

  constructor(@inject(PluginConfig) config: EventsSettings) {
    this.settings = {
      bufferSize: config.buffer_size,
      maxSubscribers: config.max_subscribers,
      flushMs: config.flush_ms,
      stall: {
        softBytes: config.subscriber_buffer_bytes,
        stallMs: config.subscriber_stall_s * 1000,
        hardBytes: config.subscriber_buffer_bytes * 16,
      },
    };
    this.log = new EventLog(this.settings.bufferSize);
  }

  /** Stream an event; `toListeners` false for one another instance already gave its webhooks. */
  publish(type: string, data: Record<string, unknown>, toListeners = true): FleetEvent {
    const event = this.log.append(type, data);
    this.figures.published++;
    if (this.subscribers.size > 0) {
      const frame = sseFrame(event);
      if (this.everyone.size > 0) {
        this.batch.push(frame);
        this.batchEvents.push(event);
        this.batchTypes.add(event.type);
        this.scheduleFlush();
      }
      if (this.subscribers.size > this.everyone.size)
        for (const subscriber of this.subscribers) if (!subscriber.takesAll) subscriber.send(event, frame);
    }
    if (toListeners) for (const listener of this.listeners) listener(event);
    return event;
  }

  /** In-process consumers (webhooks): called synchronously for every event; must not block. */
  onEvent(listener: (event: FleetEvent) => void): void {
    this.listeners.push(listener);
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  get full(): boolean {
    return this.subscribers.size >= this.settings.maxSubscribers;
  }

  /**
   * Start a stream on `res` (headers already sent). With `lastEventId`, the events after it
   * are written first; when they are no longer kept, a `reset` event says to re-read.
   */
  subscribe(res: ServerResponse, filter: EventFilter, reader: Reader, lastEventId?: number): Subscriber {
    const subscriber = new Subscriber(
      res,
      filter,
      reader,
      this.settings.stall,
      (queued) => this.scheduleFlush(queued),
      (gone, reason) => {
        this.subscribers.delete(gone);
        this.everyone.delete(gone);
        this.joinedAt.delete(gone);
        this.unflushed.delete(gone);
        if (reason === 'stalled') this.figures.stalled++;
      },
    );
    if (lastEventId !== undefined) {
      const missed = this.log.after(lastEventId);
      if (missed) for (const event of missed) subscriber.send(event, sseFrame(event));
      else {
        const reset: FleetEvent = {
          id: this.log.lastId,
          type: 'reset',
          time: new Date().toISOString(),
          data: { last_event_id: lastEventId, reason: 'the events after this id are no longer kept: read the state again' },
        };
        subscriber.send(reset, sseFrame(reset));
      }
    }
    this.subscribers.add(subscriber);
    if (subscriber.takesAll) {
      this.everyone.add(subscriber);
      if (this.batch.length > 0) this.joinedAt.set(subscriber, this.batch.length);
    }
    return subscriber;
  }

  private scheduleFlush(subscriber?: Subscriber): void {
    if (subscriber) this.unflushed.add(subscriber);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    const flush = () => {
      this.flushScheduled = false;
      // Each reader's own frames (a resume, a heartbeat) first, then the shared batch.
      for (const queued of this.unflushed) queued.flush();
      this.unflushed.clear();
      this.flushShared();
    };
    // One write per reader per batch, however many events: with a thousand readers, a write
    // per event per reader would cost more than everything else the service does.
    if (this.settings.flushMs > 0) setTimeout(flush, this.settings.flushMs).unref();
    else setImmediate(flush);
  }

  private flushShared(): void {
    if (this.batch.length === 0) return;
    let shared: Buffer | undefined;
    // Readers whose rights miss the same types of this batch (every reader role, say) share a copy too.
    const partial = new Map<string, string>();
    for (const subscriber of this.everyone) {
      if (!subscriber.holds()) continue;
      const from = this.joinedAt.get(subscriber) ?? 0;
      const missed = [...this.batchTypes].filter((type) => !subscriber.mayRead(type));
      if (missed.length > 0) {
        const key = `${from} ${missed.join(' ')}`;
        let text = partial.get(key);
        if (text === undefined) partial.set(key, (text = this.framesWithout(new Set(missed), from)));
        subscriber.writeShared(text);
      } else if (from === 0) subscriber.writeShared((shared ??= Buffer.from(this.batch.join(''))));
      else if (from < this.batch.length) subscriber.writeShared(this.batch.slice(from).join(''));
    }
    this.batch = [];
    this.batchEvents = [];
    this.batchTypes = new Set();
    this.joinedAt.clear();
  }

  /** The frames of the batch from `from` on, but those of the `missed` types. */
  private framesWithout(missed: ReadonlySet<string>, from: number): string {
    let text = '';
    for (let i = from; i < this.batch.length; i++) if (!missed.has(this.batchEvents[i]!.type)) text += this.batch[i];
    return text;
  }

  /** A comment line to every reader; a reader whose access is gone is ended instead. */
  heartbeat(): void {
    for (const subscriber of this.subscribers) subscriber.heartbeat();
  }

  /** End the streams whose access no longer holds (a token revoked or expired), events or not. */
  checkAccess(): void {
    for (const subscriber of this.subscribers) subscriber.holds();
  }

  /** End every stream (at a stop). */
  close(): void {
    this.flushShared();
    for (const subscriber of this.subscribers) subscriber.end();
  }
}
