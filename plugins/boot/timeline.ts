import type { EntityManager } from '@mikro-orm/core';
import { type Clock, type Database, GroupCommit, execute, type Logger } from 'ogserve';
import type { Inventory } from '../inventory';
import { BootStageEntity } from './entities/boot-stage';

/** A stage as the timeline stores it: the boot's own steps, and the agent coming up. */
export type TimelineStage = 'loader' | 'script' | 'kernel' | 'initrd' | 'root' | 'agent';

export interface StageFacts {
  bytes?: number;
  ms?: number;
  cut_short?: boolean;
  /** The state the agent came up in (OPG, LNX...). */
  state?: string;
}

/** A boot whose last stage is older than this is over: a stage after it (a file, an agent) starts no boot. */
const bootGapMs = 30 * 60 * 1000;

/** A PC's last stage: when its boot began, when it came, which. */
interface LastStage {
  boot: number;
  at: number;
  stage: string;
}

/** A stage waiting for its batch. */
interface PendingStage {
  clientId: number;
  stage: TimelineStage;
  at: number;
  facts: StageFacts;
}

/** Stages written in one transaction at most (a lab's PCs booting at once). */
const batchSize = 200;

/**
 * Each PC's last network boots as stages with their times: a first stage (`loader`) or a
 * script served begins a boot, unless it continues the PC's boot under way (shim then GRUB
 * then its GRUB file, iPXE then its script, a script chaining GRUB: see `continues`); the
 * files it fetches and its agent coming up are stages of that boot. Only the last `keep` boots
 * of a PC are kept. Stages are written behind, many PCs' in one transaction (core's group
 * commit), each PC's in the order they came.
 */
export class BootTimeline {
  private readonly commits: GroupCommit<PendingStage, undefined>;
  /** Agents just connected and busy with the server's first refresh, by address: when they connected. */
  private readonly connecting = new Map<string, number>();
  /**
   * Alone (no other instance writes stages): each PC's last stage, for the PCs with one in the
   * last `bootGapMs`, read at start and kept as stages are written. A stage then needs no read:
   * every stage of a boot (an agent connecting included, for every PC, booting or not) asked
   * the database for its PC's last stage, and a script for its boot's stages too. Undefined on
   * several instances, which each write stages.
   */
  private recent?: Map<number, LastStage>;
  private loaded: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Database,
    private readonly inventory: Inventory,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly keep: number,
  ) {
    this.commits = new GroupCommit(db, (em, stages) => this.writeAll(em, stages), batchSize);
  }

  /** For an instance alone: the PCs whose last stage is recent, read now; stages wait for it. */
  start(): Promise<void> {
    this.loaded = this.loadRecent();
    return this.loaded;
  }

  private async loadRecent(): Promise<void> {
    const rows = await this.db.query<{ client: number | string; boot: number | string; at: number | string; stage: string }>(
      `select client_id as client, boot, at, stage from boot_stages
         where id in (select max(id) from boot_stages where at >= ? group by client_id)`,
      [this.clock.now() - bootGapMs],
    );
    this.recent = new Map(rows.map((r) => [Number(r.client), { boot: Number(r.boot), at: Number(r.at), stage: r.stage }]));
  }

  /**
   * A PC's shown state changed (the agents' `client.state`): its agent coming up is a stage,
   * with the state it settles in once the server's first refresh is done (BSY until then).
   */
  stateChanged(ip: string, old: string, state: string): Promise<void> {
    if (old === 'OFF' && state === 'BSY') {
      this.connecting.set(ip, this.clock.now());
      return Promise.resolve();
    }
    const since = this.connecting.get(ip);
    this.connecting.delete(ip);
    if ((old !== 'OFF' && since === undefined) || state === 'OFF') return Promise.resolve();
    return this.record(ip, 'agent', { state }, since);
  }

  /** Record a stage of the PC at `ip` (now, or at `at`); a failure is logged, never thrown (the boot goes on). */
  async record(ip: string, stage: TimelineStage, facts: StageFacts = {}, at = this.clock.now()): Promise<void> {
    const client = await this.inventory.clientByIp(ip);
    if (!client) return;
    await this.commits
      .add({ clientId: client.id, stage, at, facts })
      .catch((error: unknown) => this.log.warn({ err: error, client: ip, stage }, 'boot stage not recorded'));
  }

  private async writeAll(em: EntityManager, stages: PendingStage[]): Promise<undefined[]> {
    await this.loaded;
    // In the order they came: a PC's later stage reads what its earlier one wrote.
    const written = new Map<number, LastStage>();
    for (const stage of stages) await this.write(em, stage, written);
    // Kept once committed: a batch rolled back wrote none of them.
    this.db.afterCommit(em, () => {
      for (const [clientId, last] of written) this.recent?.set(clientId, last);
    });
    return stages.map(() => undefined);
  }

  private async write(em: EntityManager, { clientId, stage, at, facts }: PendingStage, written: Map<number, LastStage>): Promise<void> {
    const begins = stage === 'script' || stage === 'loader';
    const last = written.get(clientId) ?? (await this.lastStage(em, clientId, at));
    const ongoing = last && at - last.at <= bootGapMs ? last.boot : undefined;
    // Only a loader or a script begins a boot: an agent reconnecting long after any boot is no boot stage.
    if (!begins && ongoing === undefined) return;
    const boot = begins && !continues(last, ongoing, stage, at) ? at : ongoing!;
    await em.insert(BootStageEntity, {
      client: this.inventory.clientRef(em, clientId),
      boot: String(boot),
      stage,
      at: String(at),
      bytes: facts.bytes === undefined ? null : String(facts.bytes),
      ms: facts.ms ?? null,
      cutShort: facts.cut_short ?? null,
      state: facts.state ?? null,
    });
    if (boot === at) await this.prune(em, clientId);
    written.set(clientId, { boot, at, stage });
  }

  /** The PC's last stage: kept, alone (none when its last is older than `bootGapMs`); read, on several instances. */
  private async lastStage(em: EntityManager, clientId: number, at: number): Promise<LastStage | undefined> {
    if (!this.recent) return latest(em, clientId);
    const last = this.recent.get(clientId);
    if (last && at - last.at > bootGapMs) this.recent.delete(clientId);
    return last;
  }

  /** Drop the PC's boots beyond the `keep` newest. */
  private async prune(em: EntityManager, clientId: number): Promise<void> {
    const [oldest] = await bootStarts(em, clientId, 1, this.keep - 1);
    if (oldest !== undefined) await em.nativeDelete(BootStageEntity, { client: clientId, boot: { $lt: String(oldest) } });
  }
}

/** When the PC's boots began, newest first: `limit` of them after the `offset` newest. */
export async function bootStarts(em: EntityManager, clientId: number, limit: number, offset = 0): Promise<number[]> {
  const rows = await execute<{ boot: string | number }>(
    em,
    'select distinct boot from boot_stages where client_id = ? order by boot desc limit ? offset ?',
    [clientId, limit, offset],
  );
  return rows.map((r) => Number(r.boot));
}

/** How soon after a PC's last loader or script the next one is part of the same boot (a loader loading the next, a script chaining GRUB). */
const chainedMs = 120_000;

/**
 * Whether a loader or a script at `at` continues the boot under way (`ongoing`, whose last
 * stage is `last`) rather than beginning another: that boot has reached no stage past its
 * loaders and scripts, its last stage came less than two minutes before, and that last stage
 * is a loader (shim loading GRUB, GRUB reading its file, iPXE fetching its script) or this one
 * is (a script chaining GRUB). A script after a script is the PC booting again. A boot reached
 * past its loaders and scripts when its last stage did: a loader or a script after a kernel,
 * an initrd or an agent begins a boot of its own, so none comes after those in the same boot.
 */
function continues(last: LastStage | undefined, ongoing: number | undefined, stage: TimelineStage, at: number): boolean {
  if (ongoing === undefined || !last) return false;
  if ((last.stage !== 'loader' && last.stage !== 'script') || at - last.at >= chainedMs) return false;
  return last.stage === 'loader' || stage === 'loader';
}

async function latest(em: EntityManager, clientId: number): Promise<LastStage | undefined> {
  const [row] = await em.find(BootStageEntity, { client: clientId }, { orderBy: { id: 'desc' }, limit: 1 });
  return row ? { boot: Number(row.boot), at: Number(row.at), stage: row.stage } : undefined;
}
