import type { EntityManager } from '@mikro-orm/core';
import type { Database } from 'ogserve';
import { type DiscoveredPc, DiscoveredPcEntity } from './entities/discovered';

/** What a discovered PC's agent reported. */
export interface Report {
  serial: string;
  hardware: { type: string; description: string }[];
  disks: { disk: number; size: number }[];
  movedClient: number | null;
}

/** Most components kept per PC (a real inventory has about 30): the row stays small. */
const maxComponents = 256;

/** The `discovered_pcs` table: one row per MAC nobody registered that booted for discovery. */
export class DiscoveredStore {
  constructor(private readonly db: Database) {}

  /**
   * A discovery boot of `mac` from `ip`: its row made or brought up to date, and the oldest
   * rows past `max` deleted (their MACs answered). `first` when the row is new.
   */
  async booted(mac: string, ip: string, network: string, now: number, max: number): Promise<{ first: boolean; forgotten: string[] }> {
    return this.db.transactional(async (em) => {
      const row = await em.findOne(DiscoveredPcEntity, { mac });
      if (row) {
        Object.assign(row, { ip, network, booted: now });
        await em.flush();
        return { first: false, forgotten: [] };
      }
      await em.insert(DiscoveredPcEntity, {
        mac,
        ip,
        network,
        firstSeen: now,
        booted: now,
        agentAt: null,
        reportedAt: null,
        serial: '',
        hardware: '[]',
        disks: '[]',
        movedClient: null,
      });
      const count = await em.count(DiscoveredPcEntity, {});
      if (count <= max) return { first: true, forgotten: [] };
      const oldest = await em.find(
        DiscoveredPcEntity,
        { mac: { $ne: mac } },
        { orderBy: { booted: 'asc', id: 'asc' }, limit: count - max },
      );
      const forgotten = oldest.map((r) => r.mac);
      await em.nativeDelete(DiscoveredPcEntity, { mac: { $in: forgotten } });
      return { first: true, forgotten };
    });
  }

  /** A PC's row found with the client it may be (its MAC known already: an address that changed); made when missing. */
  async foundAgain(mac: string, ip: string, network: string, now: number, movedClient: number): Promise<void> {
    await this.db.transactional(async (em) => {
      const row = await em.findOne(DiscoveredPcEntity, { mac });
      if (row) Object.assign(row, { ip, network, booted: now, movedClient });
      else
        await em.insert(DiscoveredPcEntity, {
          mac,
          ip,
          network,
          firstSeen: now,
          booted: now,
          agentAt: now,
          reportedAt: null,
          serial: '',
          hardware: '[]',
          disks: '[]',
          movedClient,
        });
    });
  }

  /** The row whose PC was last seen at `ip` (its discovery boot, or its agent). */
  async byIp(ip: string, em?: EntityManager): Promise<DiscoveredPc | null> {
    const [row] = await this.db.unit(em).find(DiscoveredPcEntity, { ip }, { orderBy: { booted: 'desc', id: 'desc' }, limit: 1 });
    return row ?? null;
  }

  byMacs(macs: string[], em?: EntityManager): Promise<DiscoveredPc[]> {
    return this.db.unit(em).find(DiscoveredPcEntity, { mac: { $in: macs } });
  }

  /** Every row, the first seen first. */
  all(em?: EntityManager): Promise<DiscoveredPc[]> {
    return this.db.unit(em).find(DiscoveredPcEntity, {}, { orderBy: { firstSeen: 'asc', id: 'asc' } });
  }

  async agentUp(mac: string, now: number, em?: EntityManager): Promise<void> {
    await this.db.unit(em).nativeUpdate(DiscoveredPcEntity, { mac }, { agentAt: now });
  }

  async reported(mac: string, report: Report, now: number, em?: EntityManager): Promise<void> {
    await this.db.unit(em).nativeUpdate(
      DiscoveredPcEntity,
      { mac },
      {
        reportedAt: now,
        agentAt: now,
        serial: report.serial.slice(0, 64),
        hardware: JSON.stringify(
          report.hardware.slice(0, maxComponents).map((c) => ({ type: c.type, description: c.description.slice(0, 200) })),
        ),
        disks: JSON.stringify(report.disks.slice(0, 64)),
        movedClient: report.movedClient,
      },
    );
  }

  /** Delete these MACs' rows (in `em`'s transaction when given): the MACs that had one. */
  async forget(macs: string[], given?: EntityManager): Promise<string[]> {
    const em = this.db.unit(given);
    const rows = await em.find(DiscoveredPcEntity, { mac: { $in: macs } });
    if (rows.length > 0) await em.nativeDelete(DiscoveredPcEntity, { mac: { $in: rows.map((r) => r.mac) } });
    return rows.map((r) => r.mac);
  }
}

/** A row's components and disks, read back. */
export function componentsOf(row: DiscoveredPc): { type: string; description: string }[] {
  return parsed(row.hardware);
}

export function disksOf(row: DiscoveredPc): { disk: number; size: number }[] {
  return parsed(row.disks);
}

function parsed<T>(text: string): T[] {
  try {
    const value = JSON.parse(text) as unknown;
    return Array.isArray(value) ? (value as T[]) : [];
  } catch {
    return [];
  }
}
