import type { EntityManager } from '@mikro-orm/core';
import { isRole, type Database, ErrorCode, badRequest } from 'ogserve';
import { UserEntity, type User } from './entities/user';
import { type Grant, idsOf, textOf } from './grant';
import type { PasswordHasher } from './passwords';

/** A local user as GET /users and `ogserve user list` show them: never the password or its hash. */
export interface UserView {
  username: string;
  role: string;
  shell: boolean;
  centers: number[];
  rooms: number[];
  disabled: boolean;
  /** ISO times. */
  created: string;
  password_changed: string;
}

export interface NewUser {
  username: string;
  password: string;
  role: string;
  shell?: boolean;
  centers?: number[];
  rooms?: number[];
}

/** What POST /users/update changes of a user: each field given. */
export interface UserChange {
  username: string;
  role?: string;
  shell?: boolean;
  centers?: number[];
  rooms?: number[];
}

/** How the store checks that centers and rooms exist (the inventory knows it). */
export type ScopeCheck = (centers: readonly number[], rooms: readonly number[]) => Promise<void>;

const namePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const isoOf = (ms: string): string => new Date(Number(ms)).toISOString();

declare module 'ogserve' {
  interface CommandLineParts {
    /** `ogserve user`: the local users, on the config's database. */
    users: typeof UserStore;
  }
}

/** Local users: made by an admin (REST or CLI), signing in with a password kept as a scrypt hash. */
export class UserStore {
  constructor(
    private readonly db: Database,
    private readonly hasher: PasswordHasher,
    private readonly checkScope: ScopeCheck,
    private readonly minPasswordLength: number,
    /**
     * Told when a user's sessions must end (disabled, removed, password changed), and with
     * `tokens` when the tokens they made for themself must go too (disabled, removed).
     */
    private readonly endAccess: (username: string, tokens: boolean) => Promise<void>,
    private readonly now: () => number = Date.now,
  ) {}

  async add(input: NewUser, given?: EntityManager): Promise<UserView> {
    if (!namePattern.test(input.username))
      throw badRequest(
        ErrorCode.invalidField,
        "'username' must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit",
        'username',
      );
    if (!isRole(input.role)) throw badRequest(ErrorCode.invalidField, "'role' must be one of reader, operator, imager, admin", 'role');
    this.checkPassword(input.password);
    const centers = input.centers ?? [];
    const rooms = input.rooms ?? [];
    await this.checkScope(centers, rooms);
    const em = this.db.unit(given);
    if (await this.find(input.username, em))
      throw badRequest(ErrorCode.duplicate, `a user named '${input.username}' already exists`, 'username');
    const now = String(this.now());
    const user = em.create(UserEntity, {
      username: input.username,
      passwordHash: await this.hasher.hash(input.password),
      role: input.role,
      shell: input.shell ?? false,
      centers: textOf(centers),
      rooms: textOf(rooms),
      disabled: false,
      createdAt: now,
      passwordChangedAt: now,
    });
    await em.flush();
    return viewOf(user);
  }

  /**
   * Change a user's role, shell right or scope (what is left out stays): the user before and
   * after, or undefined when there is no such user. Their sessions end, and the tokens they
   * made for themself go, when anything changed: they sign in again with what they now hold.
   */
  async update(change: UserChange, em?: EntityManager): Promise<{ before: UserView; after: UserView } | undefined> {
    if (change.role !== undefined && !isRole(change.role))
      throw badRequest(ErrorCode.invalidField, "'role' must be one of reader, operator, imager, admin", 'role');
    const user = await this.find(change.username, em);
    if (!user) return undefined;
    const before = viewOf(user);
    const centers = change.centers ?? before.centers;
    const rooms = change.rooms ?? before.rooms;
    if (change.centers !== undefined || change.rooms !== undefined) await this.checkScope(centers, rooms);
    const fields = {
      role: change.role ?? before.role,
      shell: change.shell ?? before.shell,
      centers: textOf(centers),
      rooms: textOf(rooms),
    };
    await this.db.unit(em).nativeUpdate(UserEntity, { id: user.id }, fields);
    const after = { ...before, role: fields.role, shell: fields.shell, centers: [...centers], rooms: [...rooms] };
    if (JSON.stringify(before) !== JSON.stringify(after)) await this.endAccess(user.username, true);
    return { before, after };
  }

  async list(em?: EntityManager): Promise<UserView[]> {
    const users = await this.db.unit(em).find(UserEntity, {}, { orderBy: { username: 'asc' } });
    return users.map(viewOf);
  }

  /** The user of that name (names compare without regard to case, as people type them). */
  async find(username: string, em?: EntityManager): Promise<User | undefined> {
    const users = await this.db.unit(em).find(UserEntity, {});
    const wanted = username.toLowerCase();
    return users.find((user) => user.username.toLowerCase() === wanted);
  }

  /** Disable or enable: false when there is no such user. A disabled user's sessions end at once. */
  async setDisabled(username: string, disabled: boolean, em?: EntityManager): Promise<boolean> {
    const user = await this.find(username, em);
    if (!user) return false;
    await this.db.unit(em).nativeUpdate(UserEntity, { id: user.id }, { disabled });
    if (disabled) await this.endAccess(user.username, true);
    return true;
  }

  /** A new password; every session of the user ends. False when there is no such user. */
  async setPassword(username: string, password: string, em?: EntityManager): Promise<boolean> {
    this.checkPassword(password);
    const user = await this.find(username, em);
    if (!user) return false;
    const passwordHash = await this.hasher.hash(password);
    await this.db.unit(em).nativeUpdate(UserEntity, { id: user.id }, { passwordHash, passwordChangedAt: String(this.now()) });
    await this.endAccess(user.username, false);
    return true;
  }

  async remove(username: string, em?: EntityManager): Promise<boolean> {
    const user = await this.find(username, em);
    if (!user) return false;
    await this.db.unit(em).nativeDelete(UserEntity, { id: user.id });
    await this.endAccess(user.username, true);
    return true;
  }

  /**
   * The grant of a user whose password is right: 'none' for a name no local user has (no
   * check made: the caller asks the directory, or spends a decoy check), 'wrong' for a wrong
   * password, 'disabled' only once the password was right.
   */
  async check(username: string, password: string): Promise<{ username: string; grants: Grant[] } | 'wrong' | 'disabled' | 'none'> {
    const user = await this.find(username);
    if (!user) return 'none';
    if (!(await this.hasher.verify(password, user.passwordHash)) || !isRole(user.role)) return 'wrong';
    if (user.disabled) return 'disabled';
    const grant = { role: user.role, shell: Boolean(user.shell), centers: idsOf(user.centers), rooms: idsOf(user.rooms) };
    return { username: user.username, grants: [grant] };
  }

  /** Spend the time a wrong password costs (a name that is neither a user nor in the directory). */
  async decoyCheck(password: string): Promise<void> {
    await this.hasher.decoyCheck(password);
  }

  private checkPassword(password: string): void {
    if ([...password].length < this.minPasswordLength)
      throw badRequest(ErrorCode.invalidField, `'password' must be at least ${this.minPasswordLength} characters`, 'password');
  }
}

function viewOf(user: User): UserView {
  return {
    username: user.username,
    role: user.role,
    shell: Boolean(user.shell),
    centers: idsOf(user.centers),
    rooms: idsOf(user.rooms),
    disabled: Boolean(user.disabled),
    created: isoOf(user.createdAt),
    password_changed: isoOf(user.passwordChangedAt),
  };
}
