import type { Clock, InjectionToken } from 'ogserve';

/** The images plugin's clock (the periodic check, the trash's days): a test registers a ManualClock for it. */
export const ImagesClock: InjectionToken<Clock> = Symbol('ImagesClock');
