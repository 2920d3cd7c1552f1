import type { Clock, InjectionToken } from 'ogserve';

/** The calendars' clock (when actions fire, what the preview starts from): a test registers a ManualClock for it. */
export const PowerClock: InjectionToken<Clock> = Symbol('PowerClock');
