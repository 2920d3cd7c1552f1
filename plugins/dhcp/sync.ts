import type { Logger, PluginCluster, PluginEvents } from 'ogserve';
import { KeaRefused } from './kea-client';
import type { DhcpMetrics } from './metrics';
import { type PushDeps, type Pushed, pushInventory } from './push';

export interface SyncTiming {
  /** Changes closer together than this are sent as one. */
  debounceMs: number;
  /** The longest wait between retries while Kea does not answer. */
  retryMaxMs: number;
}

export interface LastPush {
  at: string;
  changed: boolean;
  backup?: number;
  write_error?: string;
}

export interface LastError {
  at: string;
  reason: 'refused' | 'unreachable';
  message: string;
}

const firstRetryMs = 250;

/**
 * Keeps Kea in step with the inventory: a change arms a debounce timer (each change within
 * `debounceMs` pushes it back, up to ten times that), so a room of PCs added one by one is
 * one config-set; pushes run one at a time, and a change arriving during a push makes one
 * more. While Kea does not answer the push is tried again with a growing wait (nothing is
 * lost: each push sends the whole inventory). A refusal is reported, and not retried until
 * the next change. Of several instances the one holding `dhcp-push` pushes.
 */
export class DhcpSync {
  private held = false;
  private timer?: NodeJS.Timeout;
  private firstChangeAt = 0;
  private retryMs = firstRetryMs;
  private chain: Promise<unknown> = Promise.resolve();
  private dirty = false;
  /** A push is under way: what it sends is not in Kea until it ends. */
  private pushing = false;
  last?: LastPush;
  lastError?: LastError;

  constructor(
    private readonly deps: PushDeps,
    private readonly timing: SyncTiming,
    private readonly metrics: DhcpMetrics,
    private readonly log: Logger,
    private readonly events: PluginEvents,
  ) {}

  elect(cluster: Pick<PluginCluster, 'elected'>): void {
    cluster.elected(
      'dhcp-push',
      () => {
        this.held = true;
        // What changed while no instance pushed, or before this one started.
        this.changed(0);
      },
      () => this.stop(),
    );
  }

  /** Whether changes wait to be sent, or are being sent. */
  get pending(): boolean {
    return this.dirty || this.pushing;
  }

  stop(): void {
    this.held = false;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The inventory changed: push after the debounce (or `delayMs`). */
  changed(delayMs = this.timing.debounceMs): void {
    if (!this.held) return;
    const now = Date.now();
    if (!this.dirty) this.firstChangeAt = now;
    this.setDirty(true);
    // Past ten debounces since the first change, the timer is not pushed back any more.
    if (this.timer && now - this.firstChangeAt >= this.timing.debounceMs * 10) return;
    this.arm(delayMs);
  }

  /** Push now (POST /dhcp/sync), after any push running; throws what the push threw. */
  syncNow(): Promise<Pushed> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.setDirty(true);
    return this.serial(() => this.push(false));
  }

  /** Run `work` after any push running, alone. */
  serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.chain.then(work, work);
    this.chain = run.catch(() => undefined);
    return run;
  }

  private arm(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.serial(() => this.push(true)).catch(() => undefined);
    }, delayMs);
    this.timer.unref?.();
  }

  private setDirty(dirty: boolean): void {
    this.dirty = dirty;
    this.metrics.pending(dirty);
  }

  private async push(retry: boolean): Promise<Pushed> {
    if (retry && !this.held) throw new Error('not the instance that pushes');
    this.setDirty(false);
    this.pushing = true;
    try {
      const pushed = await pushInventory(this.deps);
      this.retryMs = firstRetryMs;
      this.last = {
        at: new Date().toISOString(),
        changed: pushed.changed,
        ...(pushed.backup ? { backup: pushed.backup } : {}),
        ...(pushed.writeError ? { write_error: pushed.writeError } : {}),
      };
      this.lastError = undefined;
      this.metrics.pushed(pushed.changed ? 'changed' : 'in_step');
      return pushed;
    } catch (error) {
      const refused = error instanceof KeaRefused;
      const message = (error as Error).message;
      const again = !refused;
      // An outage is told once, when it begins; a refusal each time.
      const told = !refused && this.lastError?.reason === 'unreachable';
      this.lastError = { at: new Date().toISOString(), reason: refused ? 'refused' : 'unreachable', message };
      this.metrics.pushed(refused ? 'refused' : 'unreachable');
      if (refused) this.log.error({ err: message }, `Kea refused ogserve's configuration: ${message}`);
      else this.log.warn({ err: message, retry_ms: this.retryMs }, `Kea did not answer; sent again in ${this.retryMs} ms`);
      if (again && this.held) {
        this.setDirty(true);
        if (!this.timer) this.arm(this.retryMs);
        this.retryMs = Math.min(this.retryMs * 2, this.timing.retryMaxMs);
      }
      if (!told) await this.events.emit('dhcp.sync.failed', this.lastError);
      throw error;
    } finally {
      this.pushing = false;
    }
  }
}
