import type { Clock, InjectionToken } from 'ogserve';

/** The boot timeline's clock (when each stage came): a test registers a ManualClock for it. */
export const BootClock: InjectionToken<Clock> = Symbol('BootClock');
