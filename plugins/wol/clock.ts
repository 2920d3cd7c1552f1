/** The clock of WOL_SENT lifetimes: tests register a ManualClock under it and move time instead of sleeping. */
export const WolClock = Symbol('WolClock');
