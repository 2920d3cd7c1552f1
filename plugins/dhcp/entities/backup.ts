import { EntitySchema } from '@mikro-orm/core';
import { LongText } from './long-text';

/** A Dhcp4 configuration Kea ran before ogserve replaced it (the last `dhcp.backups` are kept). */
export interface DhcpBackup {
  id: number;
  /** ISO 8601 UTC: when it was replaced. */
  takenAt: string;
  /** What replaced it: `sync` (the inventory's changes) or `restore` (POST /dhcp/restore). */
  reason: string;
  subnets: number;
  reservations: number;
  /** JSON: the Dhcp4 section as config-get answered it. */
  config: string;
}

export const DhcpBackupEntity = new EntitySchema<DhcpBackup>({
  name: 'DhcpBackup',
  tableName: 'dhcp_backups',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    takenAt: { type: 'string', length: 32, fieldName: 'taken_at' },
    reason: { type: 'string', length: 16 },
    subnets: { type: 'integer' },
    reservations: { type: 'integer' },
    config: { type: LongText },
  },
});
