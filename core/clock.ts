/**
 * A source of time for plugins whose timers tests must control. Production uses the system
 * clock; a plugin takes a ManualClock that tests register under its own token in the parent
 * container given to the app, and tests then move time forward instead of sleeping.
 */
export interface Clock {
  /** Milliseconds since 1970, as Date.now(). */
  now(): number;
  /** Run `fn` once the clock reaches `at` (ms since 1970); returns a cancel function. */
  setTimer(at: number, fn: () => void | Promise<void>): () => void;
}

/** setTimeout cannot wait longer than 2^31-1 ms (about 24.8 days): longer waits are chained. */
const maxTimeoutMs = 2 ** 31 - 1;

export class SystemClock implements Clock {
  now(): number {
    return Date.now();
  }

  setTimer(at: number, fn: () => void | Promise<void>): () => void {
    let timer: NodeJS.Timeout;
    const arm = () => {
      const wait = at - Date.now();
      if (wait > maxTimeoutMs) {
        timer = setTimeout(arm, maxTimeoutMs);
      } else {
        timer = setTimeout(() => void fn(), Math.max(0, wait));
      }
      timer.unref();
    };
    arm();
    return () => clearTimeout(timer);
  }
}

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
