import { EntitySchema } from '@mikro-orm/core';

/**
 * A person who signs in with a password kept here (a local user). Only the scrypt hash of
 * the password is kept, in the form passwords.ts writes. `centers` and `rooms`
 * (comma-separated ids, both empty for the whole fleet) limit what the person reaches, as
 * for tokens. Times are milliseconds since 1970 as decimal strings (64-bit columns).
 */
export interface User {
  id: number;
  username: string;
  passwordHash: string;
  role: string;
  shell: boolean;
  centers: string;
  rooms: string;
  disabled: boolean;
  createdAt: string;
  passwordChangedAt: string;
}

export const UserEntity = new EntitySchema<User>({
  name: 'User',
  tableName: 'auth_users',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    username: { type: 'string', length: 64, unique: true },
    passwordHash: { type: 'string', length: 255, fieldName: 'password_hash' },
    role: { type: 'string', length: 16 },
    shell: { type: 'boolean', default: false },
    centers: { type: 'string', length: 4000, default: '' },
    rooms: { type: 'string', length: 4000, default: '' },
    disabled: { type: 'boolean', default: false },
    createdAt: { type: 'bigint', fieldName: 'created_at' },
    passwordChangedAt: { type: 'bigint', fieldName: 'password_changed_at' },
  },
});
