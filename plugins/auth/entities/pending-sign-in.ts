import { EntitySchema } from '@mikro-orm/core';

/**
 * A sign-in through an OpenID provider between its two steps: the browser went to the
 * provider carrying `state`, `nonce` and the PKCE challenge of `verifier`, and holds a
 * cookie whose SHA-256 is `hash`. Kept in the database, so that the provider's redirect back
 * may reach any instance; used once, and gone after ten minutes.
 */
export interface PendingSignIn {
  id: number;
  hash: string;
  provider: string;
  state: string;
  nonce: string;
  verifier: string;
  createdAt: string;
}

export const PendingSignInEntity = new EntitySchema<PendingSignIn>({
  name: 'PendingSignIn',
  tableName: 'auth_pending_sign_ins',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    hash: { type: 'string', length: 64, unique: true },
    provider: { type: 'string', length: 64 },
    state: { type: 'string', length: 128 },
    nonce: { type: 'string', length: 128 },
    verifier: { type: 'string', length: 128 },
    createdAt: { type: 'bigint', fieldName: 'created_at' },
  },
});
