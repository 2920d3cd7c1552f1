import type { Clock, InjectionToken } from 'ogserve';

/** The history's clock (when a change happened, retention): a test registers a ManualClock for it. */
export const HistoryClock: InjectionToken<Clock> = Symbol('HistoryClock');
