import type { EntityManager } from '@mikro-orm/core';
import type { Clock, Database, Logger, PluginCluster, PluginEvents } from 'ogserve';
import type { ClientView, Inventory } from '../inventory';
import type { BootFiles } from '../pxe-modes';
import { NextBootEntity, type PendingBoot } from './entities/next-boot';
import './next-events';
import type { NextRevert, RevertReason } from './next-events';

/** The role whose holder runs the timeouts: of several instances, one puts PCs back on time. */
const role = 'boot-next-timers';
/** The topic that tells the holder of a one-shot set on another instance. */
const armTopic = 'boot-next.arm';
/** The topic that tells every other instance which PCs have a one-shot now. */
const pendingTopic = 'boot-next.pending';

export interface NextDeps {
  db: Database;
  inventory: Inventory;
  bootFiles: BootFiles;
  events: PluginEvents;
  cluster: PluginCluster;
  clock: Clock;
  log: Logger;
}

/**
 * One-shot boots: a PC boots a mode once and gets its previous mode back when its agent
 * connects, when its script is served, or at its timeout. Rows in `boot_next` are the truth:
 * whoever deletes a row puts the PC back, so an agent connecting on one instance and a
 * timeout on another cannot both revert it.
 */
export class OneShots {
  private readonly timers = new Map<string, () => void>();
  /**
   * The PCs that may have a row: every agent connecting and every script served asks `end`,
   * and at 8:00 that is 2,000 PCs at once, nearly none with a one-shot; a query each held the
   * database's connections from the REST answers. Loaded at start and after a reconnect to the
   * other instances, kept by `set` here and there; a PC in it whose row is gone leaves it.
   */
  private readonly mayHaveRow = new Set<string>();

  constructor(private readonly d: NextDeps) {
    d.cluster.on<{ ip: string; until: number }>(armTopic, ({ ip, until }) => {
      if (d.cluster.holds(role)) this.arm(ip, until);
    });
    d.cluster.on<{ ips: string[] }>(pendingTopic, ({ ips }) => {
      for (const ip of ips) this.mayHaveRow.add(ip);
    });
    d.cluster.onReconnect(
      () => void this.load().catch((error: Error) => d.log.warn({ err: error }, `one-shot boots not read: ${error.message}`)),
    );
    d.cluster.elected(
      role,
      () => this.rearm(),
      () => this.disarm(),
    );
  }

  /**
   * Boot `clients` into `mode` once, as POST /mode sets a mode (files, then the record), the
   * rows written first so a stop in between still reverts. A PC already in a one-shot keeps
   * its first `previous`: the mode it had before any of them.
   */
  async set(clients: ClientView[], mode: string, revert: NextRevert, timeoutS: number): Promise<PendingBoot[]> {
    const since = this.d.clock.now();
    const until = since + timeoutS * 1000;
    const rows = await this.d.bootFiles.exclusive(async () => {
      const written = await this.d.db.transactional(async (em) => {
        const earlier = await em.find(NextBootEntity, { ip: { $in: clients.map((c) => c.ip) } });
        const previousOf = new Map(earlier.map((row) => [row.ip, row.previous]));
        await em.nativeDelete(NextBootEntity, { ip: { $in: clients.map((c) => c.ip) } });
        const fresh = clients.map((c) => ({ ip: c.ip, mode, previous: previousOf.get(c.ip) ?? c.boot, revert, since, until }));
        for (const row of fresh) await em.insert(NextBootEntity, row);
        return fresh;
      });
      await this.d.bootFiles.writeMany(clients, mode);
      await this.d.inventory.setBootMode(
        clients.map((c) => c.id),
        mode,
      );
      return written;
    });
    for (const row of rows) this.mayHaveRow.add(row.ip);
    this.d.cluster.broadcast(pendingTopic, { ips: rows.map((row) => row.ip) });
    for (const row of rows) {
      if (this.d.cluster.holds(role)) this.arm(row.ip, until);
      else this.d.cluster.broadcast(armTopic, { ip: row.ip, until });
      void this.d.events.emit('boot.next.set', { ...eventOf(row), revert, until: new Date(until).toISOString() });
    }
    return rows;
  }

  /** Which PCs have a one-shot, from the rows (at start, and after missing the other instances' messages). */
  async load(): Promise<void> {
    const rows = await this.pending();
    for (const row of rows) this.mayHaveRow.add(row.ip);
  }

  /** What is pending, the next to revert first; only `within`'s addresses when given (a limited key). */
  async pending(within?: ReadonlySet<string>, em?: EntityManager): Promise<PendingBoot[]> {
    const rows = await this.d.db.unit(em).find(NextBootEntity, {}, { orderBy: { until: 'asc', ip: 'asc' } });
    return within ? rows.filter((row) => within.has(row.ip)) : rows;
  }

  /** The PC's one-shot ends for `reason`, if it has one that this reason ends (any, for a timeout). */
  async end(ip: string, reason: RevertReason, em?: EntityManager): Promise<void> {
    if (reason !== 'timeout' && !this.mayHaveRow.has(ip)) return;
    const row = await this.d.db.unit(em).findOne(NextBootEntity, { ip });
    if (!row) await this.noRow(ip, em);
    if (!row || (reason !== 'timeout' && row.revert !== reason)) return;
    await this.d.bootFiles.exclusive(async () => {
      // Only the one that deletes this very row puts the PC back; a newer one-shot is left alone.
      if ((await this.d.db.unit(em).nativeDelete(NextBootEntity, { ip, since: row.since })) === 0) return;
      this.mayHaveRow.delete(ip);
      this.timers.get(ip)?.();
      this.timers.delete(ip);
      const client = await this.d.inventory.clientByIp(ip);
      if (!client) return;
      await this.d.bootFiles.writeMany([client], row.previous);
      await this.d.inventory.setBootMode([client.id], row.previous);
      void this.d.events.emit('boot.next.reverted', { ...eventOf(row), reason });
    });
  }

  /** `ip` leaves `mayHaveRow` unless a one-shot set meanwhile (set writes in the same turn) gave it a row. */
  private async noRow(ip: string, em?: EntityManager): Promise<void> {
    await this.d.bootFiles.exclusive(async () => {
      if (!(await this.d.db.unit(em).findOne(NextBootEntity, { ip }))) this.mayHaveRow.delete(ip);
    });
  }

  /** Removed PCs' one-shots go with them: an address given to another PC later must not get their previous mode. */
  async forget(ips: string[], em?: EntityManager): Promise<void> {
    await this.d.db.unit(em).nativeDelete(NextBootEntity, { ip: { $in: ips } });
    for (const ip of ips) {
      this.mayHaveRow.delete(ip);
      this.timers.get(ip)?.();
      this.timers.delete(ip);
    }
  }

  /** On gaining the role (at start, or another holder gone): overdue ones revert now, the rest get timers. */
  private async rearm(): Promise<void> {
    const now = this.d.clock.now();
    for (const row of await this.pending()) {
      if (row.until <= now) await this.timedOut(row.ip);
      else this.arm(row.ip, row.until);
    }
  }

  private arm(ip: string, until: number): void {
    this.timers.get(ip)?.();
    this.timers.set(
      ip,
      this.d.clock.setTimer(until, () => this.timedOut(ip)),
    );
  }

  private async timedOut(ip: string): Promise<void> {
    this.timers.delete(ip);
    await this.end(ip, 'timeout').catch((error: Error) =>
      this.d.log.error({ err: error, client: ip }, `one-shot boot of ${ip} not put back: ${error.message}`),
    );
  }

  private disarm(): void {
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
  }
}

function eventOf(row: PendingBoot): { client: string; mode: string; previous: string } {
  return { client: row.ip, mode: row.mode, previous: row.previous };
}
