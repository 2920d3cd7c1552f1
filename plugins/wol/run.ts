import type { Clock } from 'ogserve';
import type { Asker } from '../agents';
import type { WakeType } from './addresses';
import type { Lane } from './pacing';

/** A client a wake run wakes: where its packet goes, and where it sits (its room decides its pacing). */
export interface Target {
  ip: string;
  clientId: number;
  room: number;
  center: number;
  packet: Buffer;
  /** The addresses its packet is sent to. */
  to: string[];
}

/** What one sending did for a client: a packet left, none did, or its agent connected meanwhile. */
export type SendResult = 'sent' | 'send_failed' | 'connected';

/** Send these targets' packets now, for run `run`. */
export type Send = (targets: readonly Target[], run: number) => Promise<Map<string, SendResult>>;

/**
 * A client's state in a run: `queued` for a later burst; `sent` (a packet left, its agent
 * has not connected); then `awake` (its agent connected), `wake_failed` (it did not, after
 * every retry), `send_failed` (the kernel refused its packets) or `cancelled`.
 */
export type RunClientState = 'queued' | 'sent' | 'awake' | 'wake_failed' | 'send_failed' | 'cancelled';
export const runClientStates: readonly RunClientState[] = ['queued', 'sent', 'awake', 'wake_failed', 'send_failed', 'cancelled'];

/** Why a client is thought not to have woken (`wake_failed`). */
export type WakeFailure = 'never_seen' | 'room_network' | 'mac' | 'no_agent';

export const wakeFailures: Record<WakeFailure, string> = {
  never_seen: 'no agent was ever seen at this address: is an agent installed, and the address right?',
  room_network: "no client of its room woke in this run: the room's network may not carry the magic packets",
  mac: 'other clients of its room woke: its MAC or its Wake-on-LAN setting may be wrong',
  no_agent: 'its agent did not connect',
};

export interface RunClient {
  ip: string;
  clientId: number;
  room: number;
  state: RunClientState;
  /** Wakes begun for it: 1, then one more per retry. */
  tries: number;
  /** Magic packets that left for it. */
  packets: number;
  /** When its last packet left (ms on the run's clock). */
  sentAt: number | null;
  endedAt: number | null;
  reason: WakeFailure | null;
}

export interface RunSettings {
  /** Ms after a client's last packet its agent has to connect; 0: not checked. */
  verifyMs: number;
  retries: number;
}

/** What a run tells its keeper. */
export interface RunHooks {
  /** A client ended (its sendings are told by the sender: `wol.sent`). */
  ended(run: WakeRun, client: RunClient): void;
  /**
   * Whether the client's agent is connected, here or at another instance: one that connected
   * at another instance is not told to this run as it connects, so its check asks.
   */
  connected(ip: string): boolean;
  /** Why each of `clients` did not wake. */
  reasons(run: WakeRun, clients: RunClient[]): Promise<Map<string, WakeFailure>>;
  finished(run: WakeRun): void;
}

const ended = new Set<RunClientState>(['awake', 'wake_failed', 'send_failed', 'cancelled']);

/**
 * One wake: its clients in lanes (pacing.ts), each lane sent in bursts of `batch` clients
 * `interval_ms` apart, each client `repeats` packets `repeat_ms` apart; with verification,
 * a burst's clients whose agent has not connected `verifyMs` after their last packet are
 * woken again (a burst of their own), up to `retries` times, then marked `wake_failed` with
 * the reason the keeper finds. Timers are on `clock`; what is due at once is sent before
 * `begin` resolves. Ends when every client has ended, or when nothing is left to send or
 * check; `cancel` ends it at once.
 */
export class WakeRun {
  readonly clients = new Map<string, RunClient>();
  state: 'running' | 'done' | 'cancelled' = 'running';
  readonly created: number;
  finished: number | null = null;
  private readonly targets = new Map<string, Target>();
  private readonly timers = new Set<() => void>();
  /** Sendings and checks due now, run one after the other. */
  private readonly due: (() => Promise<void>)[] = [];
  private busy = 0;
  /** Clients not yet ended. */
  private open = 0;

  constructor(
    readonly id: number,
    readonly type: WakeType,
    readonly asker: Asker | undefined,
    private lanes: { lane: Lane; targets: Target[] }[],
    private readonly settings: RunSettings,
    private readonly clock: Clock,
    private readonly send: Send,
    private readonly hooks: RunHooks,
  ) {
    this.created = clock.now();
    for (const { targets } of lanes) {
      for (const target of targets) {
        this.targets.set(target.ip, target);
        const { ip, clientId, room } = target;
        this.clients.set(ip, { ip, clientId, room, state: 'queued', tries: 0, packets: 0, sentAt: null, endedAt: null, reason: null });
        this.open++;
      }
    }
  }

  /** Arm every burst; send what is due now and resolve with what that sending did for each client it sent to. */
  async begin(): Promise<Map<string, SendResult>> {
    const first = new Map<string, SendResult>();
    for (const { lane, targets } of this.lanes) {
      const { batch, interval_ms } = lane.pacing;
      const size = batch === 0 ? targets.length : batch;
      for (let b = 0; b * size < targets.length; b++) {
        const burst = targets.slice(b * size, (b + 1) * size).map((t) => this.clients.get(t.ip)!);
        this.wake(burst, this.created + b * interval_ms, lane, b * interval_ms === 0 ? first : undefined);
      }
    }
    await this.drain();
    this.settle();
    return first;
  }

  /** The client's agent connected: it is awake. */
  connected(ip: string): void {
    const client = this.clients.get(ip);
    if (this.state !== 'running' || !client || ended.has(client.state)) return;
    this.end(client, 'awake');
    this.settle();
  }

  /** Stop sending and checking: clients not yet ended are `cancelled`. False when the run had ended. */
  cancel(): boolean {
    if (this.state !== 'running') return false;
    for (const client of this.clients.values()) if (!ended.has(client.state)) this.end(client, 'cancelled');
    this.finish('cancelled');
    return true;
  }

  /** Clients by state. */
  counts(): Partial<Record<RunClientState, number>> {
    const counts: Partial<Record<RunClientState, number>> = {};
    for (const { state } of this.clients.values()) counts[state] = (counts[state] ?? 0) + 1;
    return counts;
  }

  /** One wake of `burst` from `at`: its packets, then its check. `first` collects the results of a sending due now. */
  private wake(burst: RunClient[], at: number, lane: Lane, first?: Map<string, SendResult>): void {
    const { repeats, repeat_ms } = lane.pacing;
    for (let r = 0; r < repeats; r++) this.at(at + r * repeat_ms, () => this.sendTo(burst, r === 0, first));
    const last = at + (repeats - 1) * repeat_ms;
    if (this.settings.verifyMs > 0) this.at(last + this.settings.verifyMs, () => this.verify(burst, lane));
  }

  private async sendTo(burst: RunClient[], begins: boolean, first?: Map<string, SendResult>): Promise<void> {
    const due = burst.filter((c) => !ended.has(c.state));
    if (due.length === 0) return;
    if (begins) for (const client of due) client.tries++;
    const results = await this.send(
      due.map((c) => this.targets.get(c.ip)!),
      this.id,
    );
    const now = this.clock.now();
    for (const client of due) {
      const result = results.get(client.ip) ?? 'send_failed';
      if (first && !first.has(client.ip)) first.set(client.ip, result);
      if (this.state !== 'running' || ended.has(client.state)) continue;
      if (result === 'send_failed') this.end(client, 'send_failed');
      else if (result === 'connected') this.end(client, 'awake');
      else {
        client.packets++;
        client.sentAt = now;
        client.state = 'sent';
      }
    }
  }

  /** The burst's check: woken again if retries are left, else wake_failed. */
  private async verify(burst: RunClient[], lane: Lane): Promise<void> {
    for (const client of burst) if (client.state === 'sent' && this.hooks.connected(client.ip)) this.end(client, 'awake');
    const silent = burst.filter((c) => c.state === 'sent');
    if (silent.length === 0) return;
    const again = silent.filter((c) => c.tries <= this.settings.retries);
    if (again.length > 0) this.wake(again, this.clock.now(), lane);
    const failing = silent.filter((c) => c.tries > this.settings.retries);
    if (failing.length === 0) return;
    const reasons = await this.hooks.reasons(this, failing);
    for (const client of failing) if (client.state === 'sent') this.end(client, 'wake_failed', reasons.get(client.ip) ?? 'no_agent');
  }

  private end(client: RunClient, state: RunClientState, reason: WakeFailure | null = null): void {
    if (!ended.has(client.state)) this.open--;
    client.state = state;
    client.endedAt = this.clock.now();
    client.reason = reason;
    this.hooks.ended(this, client);
  }

  /** Run `fn` at `at`: with what is due now when that has come, else on a timer. */
  private at(at: number, fn: () => Promise<void>): void {
    if (at <= this.clock.now()) {
      this.due.push(fn);
      return;
    }
    const cancel = this.clock.setTimer(at, async () => {
      this.timers.delete(cancel);
      this.due.push(fn);
      await this.drain();
      this.settle();
    });
    this.timers.add(cancel);
  }

  private async drain(): Promise<void> {
    this.busy++;
    try {
      for (let fn = this.due.shift(); fn && this.state === 'running'; fn = this.due.shift()) await fn();
    } finally {
      this.busy--;
    }
  }

  /** Finish once every client has ended, or nothing is left to send or check. */
  private settle(): void {
    if (this.state !== 'running') return;
    if (this.open === 0 || (this.timers.size === 0 && this.due.length === 0 && this.busy === 0)) this.finish('done');
  }

  private finish(state: 'done' | 'cancelled'): void {
    for (const cancel of this.timers) cancel();
    this.timers.clear();
    this.due.length = 0;
    // An ended run is kept for GET /wol/runs: without its packets.
    this.targets.clear();
    this.lanes = [];
    this.state = state;
    this.finished = this.clock.now();
    this.hooks.finished(this);
  }
}
