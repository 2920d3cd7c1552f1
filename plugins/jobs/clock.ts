import type { Clock, InjectionToken } from 'ogserve';

/** The jobs' clock (when things happened, per-command timeouts, retention): a test registers a ManualClock for it. */
export const JobsClock: InjectionToken<Clock> = Symbol('JobsClock');
