import type { ServerResponse } from 'node:http';
import { EventLog, type FleetEvent } from './event-log';
import type { EventFilter } from './filter';
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
export class EventHub {
  private readonly log: EventLog;
  private readonly subscribers = new Set<Subscriber>();
  private readonly listeners: ((event: FleetEvent) => void)[] = [];
  /** Subscribers with frames queued since the last flush; written in one pass. */
  private readonly unflushed = new Set<Subscriber>();
  private flushScheduled = false;
  readonly figures: HubFigures = { published: 0, stalled: 0 };

  constructor(private readonly settings: HubSettings) {
    this.log = new EventLog(settings.bufferSize);
  }

  publish(type: string, data: Record<string, unknown>): FleetEvent {
    const event = this.log.append(type, data);
    this.figures.published++;
    if (this.subscribers.size > 0) {
      const frame = sseFrame(event);
      for (const subscriber of this.subscribers) subscriber.send(event, frame);
    }
    for (const listener of this.listeners) listener(event);
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
  subscribe(res: ServerResponse, filter: EventFilter, lastEventId?: number): Subscriber {
    const subscriber = new Subscriber(
      res,
      filter,
      this.settings.stall,
      (queued) => this.scheduleFlush(queued),
      (gone, reason) => {
        this.subscribers.delete(gone);
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
    return subscriber;
  }

  private scheduleFlush(subscriber: Subscriber): void {
    this.unflushed.add(subscriber);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    const flush = () => {
      this.flushScheduled = false;
      for (const queued of this.unflushed) queued.flush();
      this.unflushed.clear();
    };
    // One write per reader per batch, however many events: with a thousand readers, a write
    // per event per reader would cost more than everything else the service does.
    if (this.settings.flushMs > 0) setTimeout(flush, this.settings.flushMs).unref();
    else setImmediate(flush);
  }

  heartbeat(): void {
    for (const subscriber of this.subscribers) subscriber.heartbeat();
  }

  /** End every stream (at a stop). */
  close(): void {
    for (const subscriber of this.subscribers) subscriber.end();
  }
}
