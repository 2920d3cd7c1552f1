import { EntitySchema } from '@mikro-orm/core';

/**
 * A person's signed-in session, kept in the database so that every instance of a cluster
 * knows it. Only the SHA-256 of the cookie's secret is kept. The grants are those the
 * person had when signing in (a directory's groups are read again at the next sign-in).
 */
export interface Session {
  id: number;
  hash: string;
  username: string;
  /** `local`, `ldap` or an OpenID provider's name. */
  provider: string;
  /** What the person may do, as JSON: `[{"role", "shell", "centers", "rooms"}]` (several: one per role and shell their groups give). */
  grants: string;
  /** The value requests it authenticates must send in X-CSRF-Token. */
  csrf: string;
  createdAt: string;
  /** Last request seen (written in batches: up to `auth.seen_flush_s` behind). */
  seenAt: string;
}

export const SessionEntity = new EntitySchema<Session>({
  name: 'Session',
  tableName: 'auth_sessions',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    hash: { type: 'string', length: 64, unique: true },
    username: { type: 'string', length: 255, index: 'auth_sessions_username' },
    provider: { type: 'string', length: 64 },
    grants: { type: 'text' },
    csrf: { type: 'string', length: 64 },
    createdAt: { type: 'bigint', fieldName: 'created_at' },
    seenAt: { type: 'bigint', fieldName: 'seen_at' },
  },
});
