import { type Clock, inject, injectable, PluginConfig, PluginEventBus, type PluginEvents } from 'ogserve';
import { AgentLink, type Asker } from '../agents';
import { Inventory } from '../inventory';
import type { WakeType } from './addresses';
import { WolClock } from './clock';
import { type Lane, PacingTable } from './pacing';
import { type RunClient, type Send, type SendResult, type Target, type WakeFailure, WakeRun } from './run';
import type { WolSettings } from './schemas';

export interface RunStart {
  type: WakeType;
  asker?: Asker;
  send: Send;
}

type RunsConfig = Pick<
  WolSettings,
  'batch' | 'interval_ms' | 'repeats' | 'repeat_ms' | 'rooms' | 'centers' | 'verify_s' | 'retries' | 'runs_kept'
>;

/**
 * The wake runs of this instance, in memory: those running, and the last `runs_kept` that
 * ended (GET /wol/runs). Ids count from 1 from each start. Tells each run of the agents
 * that connect, finds why a client did not wake, and announces the runs (`wol.run.*`).
 */
@injectable()
export class WakeRuns {
  private nextId = 1;
  private readonly running = new Map<number, WakeRun>();
  private readonly ended = new Map<number, WakeRun>();
  /** Clients whose last run left them wake_failed and whose agent has not connected since, by address. */
  private readonly failed = new Map<string, { run: number; reason: WakeFailure; at: number }>();
  /** Addresses an agent connected from since the start (a client never seen may have no agent at all). */
  private readonly seen = new Set<string>();
  private readonly pacing: PacingTable;
  /** Each running run's client events, once every listener heard them: its end is told after them. */
  private readonly told = new Map<number, Promise<unknown>>();

  constructor(
    @inject(PluginConfig) private readonly config: RunsConfig,
    @inject(WolClock) private readonly clock: Clock,
    @inject(Inventory) private readonly inventory: Pick<Inventory, 'diskSetups'>,
    @inject(AgentLink) private readonly agents: Pick<AgentLink, 'isConnected'>,
    @inject(PluginEventBus) private readonly events?: Pick<PluginEvents, 'emit'>,
  ) {
    this.pacing = new PacingTable(config);
  }

  /** Start a run of `targets` (at least one): its id, and what its sending due at once did. */
  async start(targets: Target[], { type, asker, send }: RunStart): Promise<{ run: number; first: Map<string, SendResult> }> {
    const lanes = new Map<string, { lane: Lane; targets: Target[] }>();
    for (const target of targets) {
      const lane = this.pacing.laneOf({ id: target.room, centerId: target.center });
      const group = lanes.get(lane.key) ?? { lane, targets: [] };
      group.targets.push(target);
      lanes.set(lane.key, group);
    }
    const settings = { verifyMs: this.config.verify_s * 1000, retries: this.config.retries };
    const run = new WakeRun(this.nextId++, type, asker, [...lanes.values()], settings, this.clock, send, {
      ended: (r, client) => this.clientEnded(r, client),
      connected: (ip) => this.agents.isConnected(ip),
      reasons: (r, clients) => this.reasons(r, clients),
      finished: (r) => this.finished(r),
    });
    this.running.set(run.id, run);
    const started = this.events?.emit('wol.run.started', {
      run: run.id,
      type,
      who: asker?.name ?? null,
      source: asker?.source ?? null,
      clients: targets.map((t) => t.ip),
    });
    if (started) this.told.set(run.id, started);
    const first = await run.begin();
    return { run: run.id, first };
  }

  get(id: number): WakeRun | undefined {
    return this.running.get(id) ?? this.ended.get(id);
  }

  /** Every run kept, newest first. */
  list(): WakeRun[] {
    return [...this.running.values(), ...this.ended.values()].sort((a, b) => b.id - a.id);
  }

  /** The clients that did not wake (GET /wol/failed), oldest first. */
  failures(): { ip: string; run: number; reason: WakeFailure; at: number }[] {
    return [...this.failed].map(([ip, failure]) => ({ ip, ...failure }));
  }

  /** A client removed from the inventory is forgotten. */
  forget(ip: string): void {
    this.failed.delete(ip);
    this.seen.delete(ip);
  }

  connected(ip: string): void {
    this.seen.add(ip);
    this.failed.delete(ip);
    for (const run of this.running.values()) run.connected(ip);
  }

  /** At stop: every running run is cancelled (its timers with it). */
  stop(): void {
    for (const run of [...this.running.values()]) run.cancel();
  }

  private clientEnded(run: WakeRun, client: RunClient): void {
    const { ip, state, tries, reason } = client;
    if (state === 'wake_failed') {
      // Listed last, as the newest failure.
      this.failed.delete(ip);
      this.failed.set(ip, { run: run.id, reason: reason ?? 'no_agent', at: client.endedAt ?? this.clock.now() });
    }
    const told = this.events?.emit('wol.run.client', { run: run.id, client: ip, state, tries, reason });
    if (told) this.told.set(run.id, Promise.all([this.told.get(run.id), told]));
  }

  private finished(run: WakeRun): void {
    this.running.delete(run.id);
    this.ended.set(run.id, run);
    for (const id of this.ended.keys()) {
      if (this.ended.size <= this.config.runs_kept) break;
      this.ended.delete(id);
    }
    const payload = { run: run.id, state: run.state as 'done' | 'cancelled', states: run.counts() };
    // A listener hears a client's end before the run's (the jobs plugin ends what is left sent when the run ends).
    void Promise.resolve(this.told.get(run.id)).then(() => this.events?.emit('wol.run.finished', payload));
    this.told.delete(run.id);
  }

  /**
   * Why each client did not wake: no agent ever seen from it (none since the start, and its
   * disks were never reported); else, from the other clients of its room in the run, its
   * MAC (some woke) or the room's network (none did); else only that its agent did not connect.
   */
  private async reasons(run: WakeRun, clients: RunClient[]): Promise<Map<string, WakeFailure>> {
    const unseen = clients.filter((c) => !this.seen.has(c.ip));
    const disks = unseen.length > 0 ? await this.inventory.diskSetups(unseen.map((c) => c.clientId)) : new Map();
    const rooms = new Map<number, { awake: number; total: number }>();
    for (const { room, state } of run.clients.values()) {
      const counts = rooms.get(room) ?? { awake: 0, total: 0 };
      counts.total++;
      if (state === 'awake') counts.awake++;
      rooms.set(room, counts);
    }
    const reasons = new Map<string, WakeFailure>();
    for (const client of clients) {
      const room = rooms.get(client.room)!;
      if (!this.seen.has(client.ip) && (disks.get(client.clientId)?.length ?? 0) === 0) reasons.set(client.ip, 'never_seen');
      else if (room.awake > 0) reasons.set(client.ip, 'mac');
      else if (room.total > 1) reasons.set(client.ip, 'room_network');
      else reasons.set(client.ip, 'no_agent');
    }
    return reasons;
  }
}
