/**
 * The name a sign-in goes by, however it was typed: no spaces around it, each run of spaces
 * inside as one, in lower case. A directory compares uid and sAMAccountName this way (RFC
 * 4518: case and insignificant spaces ignored), so ` ALICE`, `alice ` and `Alice` all find
 * alice's entry; they must then be one person to the throttle, the session and the audit log,
 * or a trailing space would be a fresh name with a fresh allowance of guesses.
 */
export function signInName(typed: string): string {
  return typed.trim().replace(/\s+/g, ' ').toLowerCase();
}
