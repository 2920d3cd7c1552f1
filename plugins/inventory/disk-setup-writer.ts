import type { EntityManager, RequiredEntityData } from '@mikro-orm/core';
import { type Database, GroupCommit, execute, insertInChunks } from 'ogserve';
import { type Partition, PartitionEntity } from './entities/partition';
import type { DiskEntry } from './service';

interface Job {
  clientId: number;
  entries: DiskEntry[];
  serialNumber?: string;
}

interface StoredRow {
  id: number;
  disk: number;
  part: number;
  disk_type: string;
  code: number;
  size: string;
  used_size: string;
  free_size: string;
  filesystem: string;
  os: string;
}

const batchSize = 200;

/**
 * Stores agents' disk reports. When a lab powers on, hundreds of agents answer their first
 * refresh at once; their reports are written in shared transactions (core's group commit),
 * and a partition that did not change is not written at all. Each report still lands whole
 * or not at all: a batch that fails is written again one report per transaction.
 */
export class DiskSetupWriter {
  private readonly commits: GroupCommit<Job, undefined>;

  constructor(private readonly db: Database) {
    this.commits = new GroupCommit(db, (em, jobs) => this.write(em, jobs), batchSize);
  }

  store(clientId: number, entries: DiskEntry[], serialNumber?: string): Promise<void> {
    return this.commits.add({ clientId, entries, serialNumber });
  }

  /** The reports of `jobs` in `em`: one read of what is stored, one delete, one insert; a client's latest report wins. */
  private async write(em: EntityManager, jobs: Job[]): Promise<undefined[]> {
    const text = (column: string) => this.db.bigintAsText(column);
    const latest = new Map(jobs.map((job) => [job.clientId, job]));
    const ids = [...latest.keys()];
    const existing = await execute<StoredRow & { client_id: number }>(
      em,
      `select id, client_id, disk, part_number as part, disk_type, code, ${text('size')} as size, ${text('used_size')} as used_size,
        ${text('free_size')} as free_size, filesystem, os from partitions where client_id in (${ids.map(() => '?').join(',')})`,
      ids,
    );
    const byKey = new Map(existing.map((row) => [`${row.client_id}:${row.disk}:${row.part}`, row]));
    const kept = new Set<number>();
    const inserts: RequiredEntityData<Partition>[] = [];
    for (const job of latest.values()) {
      for (const entry of job.entries) {
        const values = {
          diskType: entry.diskType ?? '',
          code: entry.code,
          size: entry.size.toString(),
          usedSize: (entry.usedSize ?? 0n).toString(),
          freeSize: (entry.freeSize ?? 0n).toString(),
          filesystem: entry.filesystem,
          os: entry.os,
        };
        const row = byKey.get(`${job.clientId}:${entry.disk}:${entry.partition}`);
        if (!row) {
          inserts.push({ client: job.clientId, disk: entry.disk, partition: entry.partition, image: 0, software: 0, ...values });
          continue;
        }
        kept.add(Number(row.id));
        // A partition whose size, filesystem or OS changed no longer holds the image it had.
        const replaced = String(row.size) !== values.size || row.filesystem !== values.filesystem || row.os !== values.os;
        const same =
          !replaced &&
          row.disk_type === values.diskType &&
          Number(row.code) === values.code &&
          String(row.used_size) === values.usedSize &&
          String(row.free_size) === values.freeSize;
        if (!same) await em.nativeUpdate(PartitionEntity, { id: row.id }, replaced ? { ...values, image: 0, software: 0 } : values);
      }
    }
    const gone = existing.filter((row) => !kept.has(Number(row.id))).map((row) => row.id);
    if (gone.length > 0) await em.nativeDelete(PartitionEntity, { id: { $in: gone } });
    await insertInChunks(em, PartitionEntity, inserts);
    // Every serial number of the batch in one statement, each only where none is stored.
    const serials = [...latest.values()].filter((job) => job.serialNumber);
    if (serials.length > 0) {
      await execute(
        em,
        `update clients set serial_number = case id ${serials.map(() => 'when ? then ?').join(' ')} end
          where serial_number = '' and id in (${serials.map(() => '?').join(',')})`,
        [...serials.flatMap((job) => [job.clientId, job.serialNumber]), ...serials.map((job) => job.clientId)],
      );
    }
    return jobs.map(() => undefined);
  }
}
