import type { Clock, InjectionToken } from 'ogserve';

/** The boot plugin's clock (when each timeline stage came, one-shot boots' timeouts): a test registers a ManualClock for it. */
export const BootClock: InjectionToken<Clock> = Symbol('BootClock');
