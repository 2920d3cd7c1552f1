import { EntitySchema } from '@mikro-orm/core';
import { LongText } from './long-text';

/**
 * One audited request. `clients` holds the addresses it named as `,ip,ip,` (empty for none),
 * so that one client is found with `like '%,ip,%'` whatever the engine. Times are
 * milliseconds since 1970 as decimal strings (64-bit columns).
 */
export interface AuditEntry {
  id: number;
  at: string;
  token: string;
  address: string;
  method: string;
  path: string;
  clients: string;
  /** Null when the connection closed before the answer was sent. */
  status: number | null;
  ms: number;
  /**
   * What the plugins that served it told of it, as JSON (entry-details.ts): null when they
   * told nothing, and in the entries written before schema version 2.
   */
  details: string | null;
}

export const AuditEntryEntity = new EntitySchema<AuditEntry>({
  name: 'AuditEntry',
  tableName: 'audit_log',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    at: { type: 'bigint', index: 'audit_log_at' },
    token: { type: 'string', length: 64, index: 'audit_log_token' },
    address: { type: 'string', length: 45 },
    method: { type: 'string', length: 10 },
    path: { type: 'string', length: 255 },
    clients: { type: LongText },
    status: { type: 'smallint', nullable: true },
    ms: { type: 'double' },
    details: { type: LongText, nullable: true },
  },
});
