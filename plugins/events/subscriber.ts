import type { ServerResponse } from 'node:http';
import type { FleetEvent } from './event-log';
import type { EventFilter } from './filter';

/** One event in the text/event-stream format; the data line is the whole event as JSON. */
export function sseFrame(event: FleetEvent): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

export interface StallLimits {
  /** Unsent bytes a reader may have for up to `stallMs` (a burst it is still reading). */
  softBytes: number;
  stallMs: number;
  /** Unsent bytes that drop the reader at once, whatever the time. */
  hardBytes: number;
}

/**
 * One open GET /events answer. Writes never wait. A reader that falls behind by more than
 * `softBytes` and does not catch up (its socket drained) within `stallMs`, or at once by
 * more than `hardBytes`, is dropped (its connection closed): one stalled client costs the
 * server a bounded amount of memory and no time, while a burst does not drop a live one.
 */
export class Subscriber {
  /** False once the answer is ended or dropped: nothing more is written. */
  private writable = true;
  private removed = false;
  private stallTimer?: NodeJS.Timeout;
  /** Frames since the last flush, written together (one write, not one per event). */
  private queued: string[] = [];
  private queuedBytes = 0;

  constructor(
    private readonly res: ServerResponse,
    private readonly filter: EventFilter,
    private readonly limits: StallLimits,
    /** Called when the first frame of a turn is queued: the owner calls `flush` soon after. */
    private readonly onQueued: (subscriber: Subscriber) => void,
    private readonly onDrop: (subscriber: Subscriber, reason: 'stalled' | 'closed') => void,
  ) {
    res.once('close', () => this.drop('closed'));
  }

  /** `frame` is `sseFrame(event)`, made once for every subscriber. */
  send(event: FleetEvent, frame: string): void {
    if (this.writable && this.filter.matches(event)) this.queue(frame);
  }

  /** A comment line: keeps the connection alive through proxies, and shows a dead peer. */
  heartbeat(): void {
    if (this.writable) this.queue(': keep-alive\n\n');
  }

  get takesAll(): boolean {
    return this.filter.takesAll;
  }

  /** Write what was queued for this reader alone; drop it when it has fallen too far behind. */
  flush(): void {
    if (!this.writable || this.queued.length === 0) return;
    this.res.write(this.queued.length === 1 ? this.queued[0]! : this.queued.join(''));
    this.queued = [];
    this.queuedBytes = 0;
    this.checkBacklog();
  }

  /** Write a batch every reader of all events gets: one encoded copy, shared. */
  writeShared(batch: Buffer): void {
    if (!this.writable) return;
    this.res.write(batch);
    this.checkBacklog();
  }

  private checkBacklog(): void {
    const waiting = this.res.writableLength;
    if (waiting > this.limits.hardBytes) this.drop('stalled');
    else if (waiting > this.limits.softBytes && !this.stallTimer) {
      this.stallTimer = setTimeout(() => this.drop('stalled'), this.limits.stallMs);
      this.res.once('drain', () => {
        clearTimeout(this.stallTimer);
        this.stallTimer = undefined;
      });
    }
  }

  /** End the answer (at a stop); the subscriber is removed when its connection closes. */
  end(): void {
    if (!this.writable) return;
    this.flush();
    this.writable = false;
    this.res.end();
  }

  private queue(text: string): void {
    if (this.queued.length === 0) this.onQueued(this);
    this.queued.push(text);
    this.queuedBytes += text.length;
    // Memory stays bounded within one turn too: a burst larger than the hard limit drops at once.
    if (this.queuedBytes + this.res.writableLength > this.limits.hardBytes) this.drop('stalled');
  }

  private drop(reason: 'stalled' | 'closed'): void {
    this.writable = false;
    this.queued = [];
    this.queuedBytes = 0;
    clearTimeout(this.stallTimer);
    if (this.removed) return;
    this.removed = true;
    if (reason === 'stalled') this.res.destroy();
    this.onDrop(this, reason);
  }
}
