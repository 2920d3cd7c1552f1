import type { Clock, InjectionToken } from 'ogserve';

/** The enrol plugin's clock (when PCs were seen, the discovery window, the restore's wait): a test registers a ManualClock for it. */
export const EnrolClock: InjectionToken<Clock> = Symbol('EnrolClock');
