import type { EntityManager } from '@mikro-orm/core';
import {
  type Clock,
  Counter,
  Database,
  GroupCommit,
  inject,
  injectable,
  MetricsRegistry,
  PluginConfig,
  PluginEventBus,
  type PluginEvents,
  type Registry,
} from 'ogserve';
import { HardwareInventory } from '../agents';
import { Inventory } from '../inventory';
import { HistoryClock } from './clock';
import { type Component, hardwareChanges, softwareChanges } from './diff';
import { type HistoryChange, HistoryChangeEntity } from './entities/change';
import { type AlertRule, AlertRules } from './rules';

/** The metrics the recorder counts. */
@injectable()
export class HistoryCounters {
  readonly changes: Counter<'kind' | 'change'>;
  readonly alerts: Counter<'rule'>;

  constructor(@inject(MetricsRegistry) registry: Registry) {
    this.changes = new Counter({
      name: 'ogserve_history_changes_total',
      help: 'Differences found between inventories of a client, by kind (hardware, software) and change',
      labelNames: ['kind', 'change'] as const,
      registers: [registry],
    });
    this.alerts = new Counter({
      name: 'ogserve_history_alerts_total',
      help: 'Inventory reports that met an alert rule, by rule',
      labelNames: ['rule'] as const,
      registers: [registry],
    });
  }
}

function same(a: readonly unknown[], b: readonly unknown[], key: (x: unknown) => string = String): boolean {
  return a.length === b.length && a.every((x, i) => key(x) === key(b[i]));
}

/**
 * Hears each inventory the agents plugin stores, with what it replaced, and keeps the
 * differences: one row per change, none when nothing changed. Then announces them
 * (`client.hardware.changed`, `client.software.changed`) with the alerts they raised.
 */
/** A change of a report as written: its time and alerts, the client given apart. */
type ChangeRow = Omit<HistoryChange, 'id' | 'client' | 'at' | 'alerts'> & { at: number; alerts: string[] };

/** Reports' changes written in one transaction at most. */
const reportsPerBatch = 200;

@injectable()
export class HistoryRecorder {
  private readonly rules: AlertRules;

  private readonly commits: GroupCommit<{ clientId: number; rows: ChangeRow[] }, undefined>;

  constructor(
    @inject(Database) db: Database,
    @inject(Inventory) private readonly inventory: Inventory,
    @inject(HardwareInventory) private readonly hardwareNames: Pick<HardwareInventory, 'typeName'>,
    @inject(PluginEventBus) private readonly events: PluginEvents,
    @inject(PluginConfig) config: { alerts: readonly AlertRule[] },
    @inject(HistoryClock) private readonly clock: Clock,
    @inject(HistoryCounters) private readonly counters: HistoryCounters,
  ) {
    this.rules = new AlertRules(config.alerts);
    this.commits = new GroupCommit(db, (em, reports) => this.insert(em, reports), reportsPerBatch);
  }

  /**
   * A hardware report against the one before it. The first report of a client (nothing
   * stored before) is its starting point, not a change.
   */
  async hardware(report: { client: string; clientId: number; before: Component[]; after: Component[] }): Promise<void> {
    const { before, after } = report;
    if (before.length === 0 || same(before, after, (c) => `${(c as Component).type}=${(c as Component).description}`)) return;
    const changes = hardwareChanges(before, after);
    if (changes.length === 0) return;
    const { alerts, marks } = this.rules.hardware(before, after, changes);
    const at = this.clock.now();
    await this.write(
      report.clientId,
      changes.map((c, i) => ({
        at,
        kind: 'hardware',
        change: c.change,
        item: c.type,
        disk: 0,
        partition: 0,
        before: c.before,
        after: c.after,
        alerts: marks[i]!,
      })),
    );
    for (const c of changes) this.counters.changes.inc({ kind: 'hardware', change: c.change });
    for (const a of alerts) this.counters.alerts.inc({ rule: a.rule });
    const client = await this.inventory.clientById(report.clientId);
    void this.events.emit('client.hardware.changed', {
      client: report.client,
      name: client?.name ?? '',
      time: new Date(at).toISOString(),
      changes: changes.map((c, i) => ({ ...c, type_name: this.hardwareNames.typeName(c.type), alerts: marks[i]! })),
      alerts,
    });
  }

  /** A partition's software report against the one before it (the first one is a starting point). */
  async software(report: {
    client: string;
    clientId: number;
    disk: number;
    partition: number;
    before: string[];
    after: string[];
  }): Promise<void> {
    const { before, after, disk, partition } = report;
    if (before.length === 0 || same(before, after)) return;
    const changes = softwareChanges(before, after);
    if (changes.length === 0) return;
    const { alerts, marks } = this.rules.software(changes);
    const at = this.clock.now();
    await this.write(
      report.clientId,
      changes.map((c, i) => ({
        at,
        kind: 'software',
        change: c.change,
        item: c.package,
        disk,
        partition,
        before: c.before,
        after: c.after,
        alerts: marks[i]!,
      })),
    );
    for (const c of changes) this.counters.changes.inc({ kind: 'software', change: c.change });
    for (const a of alerts) this.counters.alerts.inc({ rule: a.rule });
    const client = await this.inventory.clientById(report.clientId);
    void this.events.emit('client.software.changed', {
      client: report.client,
      name: client?.name ?? '',
      time: new Date(at).toISOString(),
      disk,
      partition,
      changes: changes.map((c, i) => ({ ...c, alerts: marks[i]! })),
      alerts,
    });
  }

  /** A report's changes, written behind with other PCs' (a lab's first inventories come at once). */
  private write(clientId: number, rows: ChangeRow[]): Promise<undefined> {
    return this.commits.add({ clientId, rows });
  }

  private async insert(em: EntityManager, reports: { clientId: number; rows: ChangeRow[] }[]): Promise<undefined[]> {
    await em.insertMany<HistoryChange>(
      HistoryChangeEntity,
      reports.flatMap(({ clientId, rows }) =>
        rows.map((r) => ({ ...r, client: this.inventory.clientRef(em, clientId), at: String(r.at), alerts: r.alerts.join(',') })),
      ),
    );
    return reports.map(() => undefined);
  }
}
