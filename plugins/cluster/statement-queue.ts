import type pg from 'pg';

type Start = () => void;

/**
 * The statements of one PostgreSQL session, one at a time (pg would interleave them, and is
 * dropping that). Ordinary statements run in the order queued, which is what keeps one
 * sender's messages in order. Urgent ones (the heartbeat's) run before every ordinary one
 * still waiting: behind a burst of thousands of messages, a heartbeat would land after the
 * others' expiry, and they would take this instance for gone while it is busy for them.
 */
export class StatementQueue {
  private readonly urgent: Start[] = [];
  private ordinary: Start[] = [];
  /** Where the waiting ordinary statements begin in `ordinary`. */
  private head = 0;
  private busy = false;

  run<R extends pg.QueryResultRow>(client: pg.Client, sql: string, params: unknown[], urgent: boolean): Promise<pg.QueryResult<R>> {
    return new Promise((resolve, reject) => {
      const start = () => {
        new Promise<pg.QueryResult<R>>((ran) => ran(client.query<R>(sql, params))).then(resolve, reject).finally(() => {
          this.busy = false;
          this.next();
        });
      };
      (urgent ? this.urgent : this.ordinary).push(start);
      this.next();
    });
  }

  private next(): void {
    if (this.busy) return;
    const start = this.urgent.shift() ?? this.nextOrdinary();
    if (!start) return;
    this.busy = true;
    start();
  }

  private nextOrdinary(): Start | undefined {
    const start = this.ordinary[this.head];
    if (!start) return undefined;
    this.head++;
    // Let go of what ran (shift() on a burst of thousands would be quadratic).
    if (this.head === this.ordinary.length) {
      this.ordinary = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.ordinary.length) {
      this.ordinary = this.ordinary.slice(this.head);
      this.head = 0;
    }
    return start;
  }
}
