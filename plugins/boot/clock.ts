import type { Clock, InjectionToken } from 'ogserve';

/** The clock of one-shot boots' timeouts: a test registers a ManualClock for it. */
export const BootClock: InjectionToken<Clock> = Symbol('BootClock');
