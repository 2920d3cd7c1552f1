/**
 * A source of time for plugins whose timers tests must control. Production uses the system
 * clock; a plugin takes a ManualClock (ogserve/testing) that tests register under its own
 * token in the parent container given to the app, and tests then move time forward instead
 * of sleeping.
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
