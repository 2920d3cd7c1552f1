import { StartupError } from './errors';

/**
 * What a caller may do. Every route names the one permission it needs. Core's own are
 * `read`, `operate` and `admin`; a plugin declares more in its definition (`permissions`),
 * each held by the roles it names, or by none: then only a token given it explicitly (and
 * the configured key) holds it.
 */
export type Permission = string;

/** A permission a plugin declares. */
export interface PermissionDeclaration {
  /** What it allows, one line: in refusals and the API document. */
  description: string;
  /** The roles that hold it; none: only the tokens it is given to explicitly. */
  roles?: readonly Role[];
}

/**
 * A key or token brings a role. reader: reads only; operator: also wake, power, refresh,
 * boot mode, live image, session, cache; imager: also what plugins give it (disk work);
 * admin: also inventory writes, tokens, scheduling, and every permission a plugin gives
 * roles. A permission no role holds is given explicitly.
 */
export const roleNames = ['reader', 'operator', 'imager', 'admin'] as const;
export type Role = (typeof roleNames)[number];

export function isRole(value: string): value is Role {
  return (roleNames as readonly string[]).includes(value);
}

const corePermissions: Record<string, PermissionDeclaration> = {
  read: { description: 'read the inventory and the state of the fleet', roles: ['reader', 'operator', 'imager', 'admin'] },
  operate: { description: 'wake, power, refresh, boot modes, sessions', roles: ['operator', 'imager', 'admin'] },
  admin: { description: 'change the inventory, tokens and everything else not given apart', roles: ['admin'] },
};

/** The permissions core and the enabled plugins declare, and what each role holds. */
export class Permissions {
  private readonly declared = new Map<Permission, PermissionDeclaration & { owner: string }>();

  constructor() {
    for (const [name, declaration] of Object.entries(corePermissions)) this.declare('core', name, declaration);
  }

  /** Add `owner`'s permission; a name declared twice stops the start naming both. */
  declare(owner: string, name: Permission, declaration: PermissionDeclaration): void {
    const taken = this.declared.get(name);
    if (taken)
      throw new StartupError(
        `permission '${name}' of plugin '${owner}' is already declared by ${taken.owner === 'core' ? 'core' : `plugin '${taken.owner}'`}`,
      );
    if (!/^[a-z][a-z0-9_-]*$/.test(name))
      throw new StartupError(`permission '${name}' of plugin '${owner}': lower-case letters, digits, '_' and '-'`);
    this.declared.set(name, { ...declaration, owner });
  }

  has(name: Permission): boolean {
    return this.declared.has(name);
  }

  names(): Permission[] {
    return [...this.declared.keys()];
  }

  /** Those no role holds: a token is given them one by one. */
  explicit(): Permission[] {
    return this.names().filter((name) => (this.declared.get(name)!.roles ?? []).length === 0);
  }

  /**
   * What a caller may do: its role's permissions and its grants (a grant nobody declares is
   * nothing); with `parts`, what any part holds, each permission over the parts' scopes
   * that hold it.
   */
  accessOf(credential: Credential): Access {
    if (!credential.parts) return { ...credential, permissions: this.held(credential) };
    const parts = credential.parts.map((part) => ({ scope: part.scope, held: this.held(part) }));
    const permissions = new Set(parts.flatMap((part) => [...part.held]));
    const unite = credential.unite ?? ((scopes: AccessScope[]) => scopes[0]!);
    const scopeFor = (permission: Permission): AccessScope | undefined => {
      const holding = parts.filter((part) => part.held.has(permission));
      if (holding.some((part) => part.scope === undefined)) return undefined;
      const scopes = holding.map((part) => part.scope!);
      return scopes.length === 1 ? scopes[0] : unite(scopes);
    };
    return { ...credential, permissions, scopeFor };
  }

  private held(part: CredentialPart): Set<Permission> {
    const held = new Set<Permission>();
    for (const [name, declaration] of this.declared) if (declaration.roles?.includes(part.role)) held.add(name);
    for (const name of part.grants ?? []) if (this.declared.has(name)) held.add(name);
    return held;
  }

  /** The configured key: an admin given every permission, those no role holds included. */
  configuredKey(): Access {
    return { name: 'api_token', source: 'key', role: 'admin', permissions: new Set(this.declared.keys()) };
  }
}

/**
 * The part of the fleet a token is limited to (the plugin that made the token decides what
 * that is: centers and rooms for the tokens plugin). Routes open to such a token say how
 * (`scoped` in the route spec); every other route refuses it.
 */
export interface AccessScope {
  /** For messages: what the token is limited to ("centers 2; rooms 7"). */
  readonly description: string;
  /** The addresses among `ips` outside the scope (one no client has is outside too). */
  outside(ips: readonly string[]): Promise<string[]>;
  /** Every client address inside, for answers that list clients. */
  addresses(): Promise<ReadonlySet<string>>;
}

/** A role over part of the fleet: a credential holds one, or several (`parts`). */
export interface CredentialPart {
  role: Role;
  /** Permissions given besides the role's (those no role holds, such as `shell`). */
  grants?: readonly Permission[];
  /** Absent for the whole fleet. */
  scope?: AccessScope;
}

/** Who a request comes from, as the plugin that knows the key says it: a role over part of the fleet, or several (`parts`). */
export interface Credential extends CredentialPart {
  /** The token's name (`api_token` for the configured key), or a person's (`ana@ldap`); never a secret. */
  name: string;
  /**
   * Where the identity comes from: `key` (the configured one), `token`, or the provider that
   * signed a person in (`local`, `ldap`, an OpenID provider's name).
   */
  source?: string;
  /**
   * Whether the credential still holds: a token not revoked or expired (a person's session
   * not ended). Absent: it always does. Asked again for every event an open stream sends,
   * so that a stream ends once its credential is gone; must answer at once.
   */
  holds?(): boolean;
  /**
   * Several roles, each over its own part of the fleet (a person in several directory
   * groups): the credential holds a permission where any part holding it reaches. `role`
   * and `scope` then only describe it (the highest role; every part).
   */
  parts?: readonly CredentialPart[];
  /** One scope reaching what each of `scopes` reaches (the plugin that made them knows how). */
  unite?(scopes: AccessScope[]): AccessScope;
}

/** Who a request comes from and what it may do. */
export interface Access extends Credential {
  permissions: ReadonlySet<Permission>;
  /** With `parts`: the part of the fleet where the caller holds `permission` (undefined: everywhere). */
  scopeFor?(permission: Permission): AccessScope | undefined;
}

/** Where `access` holds `permission`: its scope for it (undefined: the whole fleet). */
export function scopeOf(access: Access, permission: Permission): AccessScope | undefined {
  return access.scopeFor ? access.scopeFor(permission) : access.scope;
}

/** The access a route sees: for a caller of several parts, the scope where it holds the route's permission. */
export function accessForRoute(access: Access | undefined, permission: Permission | undefined): Access | undefined {
  if (!access?.scopeFor || permission === undefined) return access;
  return { ...access, scope: access.scopeFor(permission) };
}

/**
 * Finds the access of a key that is not the configured one (a plugin's tokens), or
 * undefined for a key it does not know, has expired or was revoked.
 */
export type KeyLookup = (key: string) => Credential | undefined | Promise<Credential | undefined>;
