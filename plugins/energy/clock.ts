import type { Clock, InjectionToken } from 'ogserve';

/** The energy report's clock (when a state began, wake windows, retention): a test registers a ManualClock for it. */
export const EnergyClock: InjectionToken<Clock> = Symbol('EnergyClock');
