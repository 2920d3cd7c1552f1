/** The plugin's source of time (session lifetimes, sign-in delays): tests register a ManualClock under it. */
export const AuthClock = Symbol('AuthClock');
