import { EntitySchema } from '@mikro-orm/core';

/**
 * An API token. Only the SHA-256 of its secret is kept: the secret is shown once, when the
 * token is made. Times are milliseconds since 1970 as decimal strings (64-bit columns).
 * `centers` and `rooms` (comma-separated ids, empty for none) limit the token to that part
 * of the fleet; both empty: the whole fleet. A person may make tokens for themself, with at
 * most their own rights: `owner` names them.
 */
export interface Token {
  id: number;
  name: string;
  hash: string;
  role: string;
  shell: boolean;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  centers: string;
  rooms: string;
  /** The person who made it for themself (`ana@local`); null for a token an admin made. */
  owner: string | null;
}

export const TokenEntity = new EntitySchema<Token>({
  name: 'Token',
  tableName: 'api_tokens',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    name: { type: 'string', length: 64, unique: true },
    hash: { type: 'string', length: 64, unique: true },
    role: { type: 'string', length: 16 },
    shell: { type: 'boolean', default: false },
    createdAt: { type: 'bigint', fieldName: 'created_at' },
    expiresAt: { type: 'bigint', fieldName: 'expires_at', nullable: true },
    lastUsedAt: { type: 'bigint', fieldName: 'last_used_at', nullable: true },
    centers: { type: 'string', length: 4000, default: '' },
    rooms: { type: 'string', length: 4000, default: '' },
    owner: { type: 'string', length: 255, nullable: true, index: 'api_tokens_owner' },
  },
});
