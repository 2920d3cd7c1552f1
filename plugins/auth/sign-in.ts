import { performance } from 'node:perf_hooks';
import { ErrorCode, HttpError, type Logger } from 'ogserve';
import { cookieChallenge } from './cookies';
import type { Grant } from './grant';
import { type GroupRights, grantsOfGroups } from './group-rights';
import type { DirectoryAnswer } from './ldap-directory';
import { signInName } from './sign-in-name';
import type { SignInThrottle } from './sign-in-throttle';
import type { UserStore } from './users';

/** A directory that checks a password and says which groups the person is in (LDAP, Active Directory). */
export interface Directory {
  authenticate(username: string, password: string): Promise<DirectoryAnswer>;
}

export interface DirectorySetup {
  directory: Directory;
  /** Group DN -> what membership gives. */
  groups: Readonly<Record<string, GroupRights>>;
  /** How group names are compared (DNs: case and spaces after commas do not count). */
  normalise(group: string): string;
}

/** Who signed in, and what they may do. */
export interface SignedIn {
  username: string;
  /** `local` or `ldap`. */
  provider: string;
  grants: Grant[];
}

const wrong = () => new HttpError(401, ErrorCode.unauthorized, 'wrong username or password', undefined, cookieChallenge);

/** How long a refused attempt waits before its 429: an attacker that waits for answers gets one try a second per connection, not thousands. */
const tarpitMs = 1000;

/**
 * Checks a username and password: a local user of that name first (local users keep
 * working when the directory is down), else the directory when one is configured. Names are
 * taken as {@link signInName} makes them, so that every spelling of one is one person.
 * Every wrong answer is the same 401 and costs the same time, so that it does not tell which
 * names exist: each attempt checks one password hash (the user's, or a decoy for a name that
 * is not local, while the directory is asked), and a wrong one is answered `wrongAnswerMs`
 * after it began, whichever checks it took. Attempts slow the next ones of that name and
 * address (429, answered after a second), and only the right password takes the user's back.
 */
export class SignIn {
  constructor(
    private readonly users: UserStore,
    private readonly throttle: SignInThrottle,
    private readonly log: Logger,
    /** How long after its start a wrong sign-in is answered (later only when its checks took longer). */
    private readonly wrongAnswerMs: number,
    private readonly directory?: DirectorySetup,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  async check(typed: string, password: string, address: string): Promise<SignedIn> {
    const username = signInName(typed);
    const wait = this.throttle.retryAfter(username, address);
    if (wait > 0) {
      await this.sleep(Math.min(wait * 1000, tarpitMs));
      const headers = { 'Retry-After': String(wait) };
      const message = `too many failed sign-ins for this name or from ${address}: try again in ${wait} s`;
      throw new HttpError(429, ErrorCode.tooManyAttempts, message, undefined, headers);
    }
    this.throttle.began(username, address);
    const started = performance.now();
    try {
      const person = await this.person(username, password);
      this.throttle.cleared(username, address);
      return person;
    } catch (error) {
      // Only a wrong password or name is a guess: the directory down or a disabled account is not.
      if (!(error instanceof HttpError) || error.status !== 401) this.throttle.forgiven(username, address);
      else await this.sleep(started + this.wrongAnswerMs - performance.now());
      throw error;
    }
  }

  private async person(username: string, password: string): Promise<SignedIn> {
    const local = await this.users.check(username, password);
    if (local === 'disabled') throw new HttpError(403, ErrorCode.forbidden, `the account '${username}' is disabled`);
    if (typeof local === 'object') return { username: local.username, provider: 'local', grants: local.grants };
    if (local === 'wrong') throw wrong();
    // Not a local name: the decoy costs what a local user's check costs (in scrypt's queue
    // too), and the directory's round trip happens beside it rather than after it.
    if (!this.directory) {
      await this.users.decoyCheck(password);
      throw wrong();
    }
    const [person, decoy] = await Promise.allSettled([
      this.fromDirectory(this.directory, username, password),
      this.users.decoyCheck(password),
    ]);
    // A full queue (503 busy) is answered as it is for a local name.
    if (decoy.status === 'rejected') throw decoy.reason;
    if (person.status === 'rejected') throw person.reason;
    return person.value;
  }

  private async fromDirectory(setup: DirectorySetup, username: string, password: string): Promise<SignedIn> {
    const answer = await setup.directory.authenticate(username, password);
    if (answer.outcome === 'unavailable') {
      this.log.error({ reason: answer.reason }, 'the directory did not answer a sign-in');
      throw new HttpError(
        503,
        'directory_unavailable',
        `the directory did not answer (${answer.reason}): local users and API keys still work`,
      );
    }
    if (answer.outcome !== 'ok') throw wrong();
    const grants = grantsOfGroups(answer.groups, setup.groups, setup.normalise);
    if (grants.length === 0) {
      this.log.warn({ username, dn: answer.dn }, 'a directory user in no mapped group tried to sign in');
      throw new HttpError(
        403,
        ErrorCode.forbidden,
        `'${username}' is in no directory group that ogserve gives a role to: ask an administrator`,
      );
    }
    return { username, provider: 'ldap', grants };
  }
}
