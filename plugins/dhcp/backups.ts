import type { EntityManager } from '@mikro-orm/core';
import type { Database } from 'ogserve';
import { type DhcpBackup, DhcpBackupEntity } from './entities/backup';
import type { KeaConfig } from './kea-client';
import { summary } from './kea-config';

export interface BackupView {
  id: number;
  taken_at: string;
  reason: string;
  subnets: number;
  reservations: number;
}

const viewOf = (row: Omit<DhcpBackup, 'config'>): BackupView => ({
  id: row.id,
  taken_at: row.takenAt,
  reason: row.reason,
  subnets: row.subnets,
  reservations: row.reservations,
});

/** The configurations ogserve replaced in Kea, newest first, the last `keep` of them (in the database: every instance sees them). */
export class Backups {
  constructor(
    private readonly db: Database,
    private readonly keep: number,
  ) {}

  async save(config: KeaConfig, reason: 'sync' | 'restore', at: Date, given?: EntityManager): Promise<number> {
    const em = this.db.unit(given);
    const row = em.create(DhcpBackupEntity, {
      takenAt: at.toISOString(),
      reason,
      ...summary(config),
      config: JSON.stringify(config),
    });
    await em.persistAndFlush(row);
    const old = (await em.find(DhcpBackupEntity, {}, { orderBy: { id: 'desc' }, fields: ['id'] })).slice(this.keep);
    if (old.length > 0) await em.nativeDelete(DhcpBackupEntity, { id: { $in: old.map((r) => r.id) } });
    return row.id;
  }

  async list(em?: EntityManager): Promise<BackupView[]> {
    const rows = await this.db
      .unit(em)
      .find(DhcpBackupEntity, {}, { orderBy: { id: 'desc' }, fields: ['id', 'takenAt', 'reason', 'subnets', 'reservations'] });
    return rows.map(viewOf);
  }

  async config(id: number, em?: EntityManager): Promise<KeaConfig | undefined> {
    const row = await this.db.unit(em).findOne(DhcpBackupEntity, { id });
    return row ? (JSON.parse(row.config) as KeaConfig) : undefined;
  }
}
