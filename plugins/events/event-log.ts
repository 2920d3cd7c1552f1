/** One event as subscribers and webhooks receive it. */
export interface FleetEvent {
  /** Increases by one per event, from 1 at the start of the process. */
  id: number;
  type: string;
  /** ISO 8601, UTC. */
  time: string;
  data: Record<string, unknown>;
}

/**
 * The last `size` events, in order, so that a subscriber that reconnects with
 * `Last-Event-ID` gets what it missed. Ids restart with the process: a subscriber whose
 * last id is not in the buffer (too old, or from before a restart) must re-read.
 */
export class EventLog {
  private readonly ring: (FleetEvent | undefined)[];
  private next = 1;

  constructor(readonly size: number) {
    this.ring = new Array(size);
  }

  append(type: string, data: Record<string, unknown>, now = Date.now()): FleetEvent {
    const event: FleetEvent = { id: this.next++, type, time: new Date(now).toISOString(), data };
    this.ring[event.id % this.size] = event;
    return event;
  }

  /** The id of the newest event, 0 before the first. */
  get lastId(): number {
    return this.next - 1;
  }

  /**
   * The events after `lastId`, oldest first, or undefined when some of them are no longer
   * kept (or `lastId` was never given out by this process).
   */
  after(lastId: number): FleetEvent[] | undefined {
    if (!Number.isInteger(lastId) || lastId < 0 || lastId > this.lastId) return undefined;
    const oldestKept = Math.max(1, this.next - this.size);
    if (lastId + 1 < oldestKept) return undefined;
    const missed: FleetEvent[] = [];
    for (let id = lastId + 1; id < this.next; id++) missed.push(this.ring[id % this.size]!);
    return missed;
  }
}
