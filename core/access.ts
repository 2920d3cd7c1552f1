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

/** Who a request comes from and what it may do. */
export interface Access {
  /** The token's name (`api_token` for the configured key); never a secret. */
  name: string;
  role: Role;
  permissions: ReadonlySet<Permission>;
}

export function accessOf(name: string, role: Role, shell: boolean): Access {
  return { name, role, permissions: new Set<Permission>([...roles[role], ...(shell ? (['shell'] as const) : [])]) };
}

/**
 * Finds the access of a key that is not the configured one (a plugin's tokens), or
 * undefined for a key it does not know, has expired or was revoked.
 */
export type KeyLookup = (key: string) => Access | undefined | Promise<Access | undefined>;
