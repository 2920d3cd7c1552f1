import { ErrorCode, HttpError } from '../../core/errors';
import type { Logger } from '../../core/log';
import { cookieChallenge } from './cookies';
import type { Grant } from './grant';
import { type GroupRights, grantsOfGroups } from './group-rights';
import type { DirectoryAnswer } from './ldap-directory';
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

/**
 * Checks a username and password: a local user of that name first (local users keep
 * working when the directory is down), else the directory when one is configured. Every
 * wrong answer is the same 401 and costs the same time, so that it does not tell which
 * names exist; failures slow the next attempts of that name and address.
 */
export class SignIn {
  constructor(
    private readonly users: UserStore,
    private readonly throttle: SignInThrottle,
    private readonly log: Logger,
    private readonly directory?: DirectorySetup,
  ) {}

  async check(username: string, password: string, address: string): Promise<SignedIn> {
    const local = await this.users.check(username, password);
    if (local === 'disabled') throw new HttpError(403, ErrorCode.forbidden, `the account '${username}' is disabled`);
    if (typeof local === 'object') {
      this.throttle.succeeded(username);
      return { username: local.username, provider: 'local', grants: local.grants };
    }
    if (local === 'none' && this.directory) return this.fromDirectory(this.directory, username, password, address);
    if (local === 'none') await this.users.decoyCheck(password);
    this.throttle.failed(username, address);
    throw wrong();
  }

  private async fromDirectory(setup: DirectorySetup, username: string, password: string, address: string): Promise<SignedIn> {
    const answer = await setup.directory.authenticate(username, password);
    if (answer.outcome === 'unavailable') {
      this.log.error({ reason: answer.reason }, 'the directory did not answer a sign-in');
      throw new HttpError(
        503,
        'directory_unavailable',
        `the directory did not answer (${answer.reason}): local users and API keys still work`,
      );
    }
    if (answer.outcome !== 'ok') {
      this.throttle.failed(username, address);
      throw wrong();
    }
    const grants = grantsOfGroups(answer.groups, setup.groups, setup.normalise);
    if (grants.length === 0) {
      this.log.warn({ username, dn: answer.dn }, 'a directory user in no mapped group tried to sign in');
      throw new HttpError(
        403,
        ErrorCode.forbidden,
        `'${username}' is in no directory group that ogserve gives a role to: ask an administrator`,
      );
    }
    this.throttle.succeeded(username);
    return { username, provider: 'ldap', grants };
  }
}
