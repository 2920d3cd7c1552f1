/**
 * The scheduler's only source of time. Tests register a ManualClock under `SchedulerClock`
 * in the parent container given to the app before starting a server.
 */
export { SystemClock, type Clock } from 'ogserve';

/** The injection token tests use to replace the scheduler's clock. */
export const SchedulerClock = Symbol('SchedulerClock');
