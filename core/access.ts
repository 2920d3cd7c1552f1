/**
 * What a caller may do. Every route names the one permission it needs; a key or token
 * brings a role (a set of permissions), and `shell` only when it was given explicitly.
 */
export const permissions = ['read', 'operate', 'image', 'admin', 'shell'] as const;
export type Permission = (typeof permissions)[number];

/**
 * reader: reads only; operator: also wake, power, refresh, boot mode, live image, session,
 * cache; imager: also image create/restore, partition and format; admin: also inventory
 * writes, tokens, scheduling and everything else but shell.
 */
export const roles = {
  reader: ['read'],
  operator: ['read', 'operate'],
  imager: ['read', 'operate', 'image'],
  admin: ['read', 'operate', 'image', 'admin'],
} as const satisfies Record<string, readonly Permission[]>;
export type Role = keyof typeof roles;

export function isRole(value: string): value is Role {
  return Object.hasOwn(roles, value);
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

/** Who a request comes from and what it may do. */
export interface Access {
  /** The token's name (`api_token` for the configured key); never a secret. */
  name: string;
  role: Role;
  permissions: ReadonlySet<Permission>;
  /** Absent for a key that reaches the whole fleet. */
  scope?: AccessScope;
  /**
   * Whether the credential still holds: a token not revoked or expired (a person's session
   * not ended). Absent: it always does. Asked again for every event an open stream sends,
   * so that a stream ends once its credential is gone; must answer at once.
   */
  holds?(): boolean;
}

export function accessOf(name: string, role: Role, shell: boolean, scope?: AccessScope): Access {
  return { name, role, permissions: new Set<Permission>([...roles[role], ...(shell ? (['shell'] as const) : [])]), scope };
}

/**
 * Finds the access of a key that is not the configured one (a plugin's tokens), or
 * undefined for a key it does not know, has expired or was revoked.
 */
export type KeyLookup = (key: string) => Access | undefined | Promise<Access | undefined>;
