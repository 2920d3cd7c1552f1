import type { Clock } from '../core/clock';

interface ManualTimer {
  at: number;
  seq: number;
  fn: () => void | Promise<void>;
}

/** A clock that moves only when told to; timers run in time order and are awaited. */
export class ManualClock implements Clock {
  private timers: ManualTimer[] = [];
  private seq = 0;

  constructor(private current: number) {}

  now(): number {
    return this.current;
  }

  setTimer(at: number, fn: () => void | Promise<void>): () => void {
    const timer = { at, seq: this.seq++, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Timers not yet run, for tests that check what is armed. */
  pendingTimers(): number[] {
    return this.timers.map((t) => t.at).sort((a, b) => a - b);
  }

  /** Move to `at`, running (and awaiting) every timer due on the way, earliest first. */
  async advanceTo(at: number): Promise<void> {
    for (;;) {
      const due = this.timers.filter((t) => t.at <= at).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.current = Math.max(this.current, due.at);
      await due.fn();
    }
    this.current = Math.max(this.current, at);
  }

  advance(ms: number): Promise<void> {
    return this.advanceTo(this.current + ms);
  }
}
