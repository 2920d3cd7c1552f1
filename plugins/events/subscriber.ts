import type { ServerResponse } from 'node:http';
import type { FleetEvent } from './event-log';
import type { EventFilter } from './filter';
import type { Reader } from './reader';

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

/** A frame waiting to be written, with its event (none for a comment line). */
interface Queued {
  event?: FleetEvent;
  frame: string;
}

/**
 * One open GET /events answer. Every event is checked against the reader's access before
 * it is written (reader.ts); the stream ends once that access no longer holds. Writes never
 * wait. A reader that falls behind by more than `softBytes` and does not catch up (its
 * socket drained) within `stallMs`, or at once by more than `hardBytes`, is dropped (its
 * connection closed): one stalled client costs the server a bounded amount of memory and
 * no time, while a burst does not drop a live one.
 */
export class Subscriber {
  /** False once the answer is ending or dropped: nothing more is queued. */
  private writable = true;
  private removed = false;
  private stallTimer?: NodeJS.Timeout;
  /** Frames since the last flush, written together (one write, not one per event). */
  private queued: Queued[] = [];
  private queuedBytes = 0;
  /** A limited reader's batches wait for their scope check: each is written after the one before. */
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly res: ServerResponse,
    private readonly filter: EventFilter,
    private readonly reader: Reader,
    private readonly limits: StallLimits,
    /** Called when the first frame of a turn is queued: the owner calls `flush` soon after. */
    private readonly onQueued: (subscriber: Subscriber) => void,
    private readonly onDrop: (subscriber: Subscriber, reason: 'stalled' | 'closed') => void,
  ) {
    res.once('close', () => this.drop('closed'));
  }

  /** `frame` is `sseFrame(event)`, made once for every subscriber. */
  send(event: FleetEvent, frame: string): void {
    if (this.writable && this.filter.matches(event) && this.reader.mayRead(event.type)) this.queue({ event, frame });
  }

  /** A comment line: keeps the connection alive through proxies, and shows a dead peer. */
  heartbeat(): void {
    if (this.writable && this.holds()) this.queue({ frame: ': keep-alive\n\n' });
  }

  /** Readers of every event, with the whole fleet in reach, share one encoded batch. */
  get takesAll(): boolean {
    return this.filter.takesAll && !this.reader.scoped;
  }

  /** Whether this reader's rights reach events of `type` (the shared batch holds every type). */
  mayRead(type: string): boolean {
    return this.reader.mayRead(type);
  }

  /** Whether the access the stream was opened with still holds; the stream ends when not. */
  holds(): boolean {
    if (!this.writable) return false;
    if (this.reader.holds) return true;
    this.writable = false;
    this.queued = [];
    this.queuedBytes = 0;
    void this.writing.then(() => this.res.end());
    return false;
  }

  /** Write what was queued for this reader alone; drop it when it has fallen too far behind. */
  flush(): void {
    if (!this.writable || this.queued.length === 0 || !this.holds()) return;
    const items = this.queued;
    this.queued = [];
    this.queuedBytes = 0;
    if (this.reader.scoped) this.writing = this.writing.then(() => this.writeLimited(items));
    else this.write(items.length === 1 ? items[0]!.frame : items.map((item) => item.frame).join(''));
  }

  /** Write a batch every reader of all events gets: one encoded copy, shared. */
  writeShared(batch: Buffer | string): void {
    if (this.writable && batch.length > 0) this.write(batch);
  }

  /** End the answer (at a stop); the subscriber is removed when its connection closes. */
  end(): void {
    if (!this.writable) return;
    this.flush();
    this.writable = false;
    void this.writing.then(() => this.res.end());
  }

  /** A limited reader's frames, once the scope has been asked about the clients they name. */
  private async writeLimited(items: Queued[]): Promise<void> {
    const events = items.flatMap((item) => (item.event ? [item.event] : []));
    let seen: (FleetEvent | undefined)[];
    try {
      seen = await this.reader.limit(events);
    } catch {
      // The scope could not be read: nothing unchecked is sent; the reader may come back.
      this.writable = false;
      this.res.end();
      return;
    }
    let at = 0;
    let text = '';
    for (const item of items) {
      if (!item.event) {
        text += item.frame;
        continue;
      }
      const shown = seen[at++];
      if (shown) text += shown === item.event ? item.frame : sseFrame(shown);
    }
    if (text) this.write(text);
  }

  private write(text: Buffer | string): void {
    if (this.removed || this.res.writableEnded) return;
    this.res.write(text);
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

  private queue(item: Queued): void {
    if (this.queued.length === 0) this.onQueued(this);
    this.queued.push(item);
    this.queuedBytes += item.frame.length;
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
