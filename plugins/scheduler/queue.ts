import type { EntityManager } from '@mikro-orm/core';
import type { Database, Logger } from 'ogserve';
import { AgentLinkError, type AgentLink, type Asker, type Dispatch } from '../agents';
import type { Clock } from './clock';
import type { StepCommands } from './commands';
import { ActionEntity, type ActionResult } from './entities/action';

/** Who asks for what the queue sends, as dispatch observers (the jobs plugin) see it: a run of a procedure or task. */
const scheduler: Asker = { name: 'scheduler', source: 'scheduler' };

/** What a schedule fired asks for: the schedule by its name (a schedule since deleted, the scheduler). */
async function askerOf(db: Database, scheduleId: number): Promise<Asker> {
  if (!scheduleId) return scheduler;
  const [row] = await db.query<{ name: string }>('select name from schedules where id = ?', [scheduleId]);
  return row ? { name: String(row.name), source: 'schedule' } : scheduler;
}

export interface QueuedAction {
  id: number;
  ip: string;
  queuedAt: number;
}

export interface QueueTimings {
  /** A queued command not sent within this long is marked failed (reference: 900 s). */
  pendingTimeoutMs: number;
  /** How often delivery is retried for connected clients that still have commands queued. */
  retryMs: number;
}

/**
 * Commands queued per client, oldest first, delivered one at a time through AgentLink
 * when the client is connected and idle. The queue is the `actions` table (state
 * `queued`), mirrored in memory; it survives a restart, unlike the reference's.
 */
export class CommandQueue {
  private readonly byIp = new Map<string, QueuedAction[]>();
  /** Clients a delivery loop is running for: one command at a time per client. */
  private readonly delivering = new Set<string>();
  /** Clients kicked while their loop ran. */
  private readonly kickedAgain = new Set<string>();
  private cancelSweep?: () => void;
  /** Stopped until load(): only the instance that holds the scheduler role delivers. */
  private stopped = true;
  /** Resolves at stop(): a delivery waiting for an answer gives up waiting (the row stays `sent`). */
  private stopping: Promise<void> = Promise.resolve();
  private resolveStopping!: () => void;
  /** Delivery loops still running, so that stop() and tests can wait for them. */
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly db: Database,
    private readonly link: AgentLink,
    private readonly commands: StepCommands,
    private readonly clock: Clock,
    private readonly timings: QueueTimings,
    private readonly log: Logger,
    /** Where this queue does not run (another instance runs the scheduler): actions queued, or a client to try, there. */
    private readonly elsewhere: (ip?: string) => void = () => undefined,
  ) {}

  /**
   * Start-up: commands sent before a restart have no answer to wait for; queued ones resume.
   * A wake step still queued was never sent (they leave as they are queued); waking a lab
   * at some later restart would surprise whoever planned it, so it fails instead.
   */
  async load(given?: EntityManager): Promise<void> {
    this.stopped = false;
    this.stopping = new Promise((resolve) => (this.resolveStopping = resolve));
    const em = this.db.unit(given);
    const finishedAt = this.clock.now();
    await em.nativeUpdate(
      ActionEntity,
      { state: 'sent' },
      { state: 'done', result: 'failure', note: 'server restarted before the agent answered', finishedAt },
    );
    await em.nativeUpdate(
      ActionEntity,
      { state: 'queued', command: 'wol' },
      { state: 'done', result: 'failure', note: 'server restarted before the wake-on-LAN packet was sent', finishedAt },
    );
    const rows = await em.find(ActionEntity, { state: 'queued' }, { orderBy: { id: 'asc' }, fields: ['id', 'ip', 'queuedAt'] });
    this.add(rows.map((r) => ({ id: r.id, ip: r.ip, queuedAt: r.queuedAt ?? this.clock.now() })));
  }

  add(actions: QueuedAction[]): void {
    if (this.stopped) {
      if (actions.length > 0) this.elsewhere();
      return;
    }
    for (const action of actions) {
      const list = this.byIp.get(action.ip) ?? [];
      list.push(action);
      this.byIp.set(action.ip, list);
    }
    this.armSweep();
  }

  /**
   * Another instance queued or changed actions: add the queued rows not known here, forget
   * those no longer queued, and try the connected clients.
   */
  async refresh(em?: EntityManager): Promise<void> {
    if (this.stopped) return;
    const rows = await this.db
      .unit(em)
      .find(ActionEntity, { state: 'queued' }, { orderBy: { id: 'asc' }, fields: ['id', 'ip', 'queuedAt'] });
    const queued = new Set(rows.map((r) => r.id));
    const known = new Set([...this.byIp.values()].flatMap((list) => list.map((a) => a.id)));
    this.drop(new Set([...known].filter((id) => !queued.has(id))));
    this.add(rows.filter((r) => !known.has(r.id)).map((r) => ({ id: r.id, ip: r.ip, queuedAt: r.queuedAt ?? this.clock.now() })));
    for (const ip of this.byIp.keys()) if (this.link.isConnected(ip)) this.kick(ip);
  }

  /** Forget queued actions (their rows were changed elsewhere, e.g. re-queued by a schedule). */
  drop(ids: Set<number>): void {
    for (const [ip, list] of this.byIp) {
      const kept = list.filter((a) => !ids.has(a.id));
      if (kept.length) this.byIp.set(ip, kept);
      else this.byIp.delete(ip);
    }
  }

  pendingIps(): string[] {
    return [...this.byIp.keys()];
  }

  /** GET /run/schedule to clients; each that answers 200 gets its oldest queued command. */
  async runSchedule(ips: string[]): Promise<Dispatch> {
    const dispatch = await this.link.dispatch(ips, { method: 'GET', path: 'run/schedule' });
    for (const [ip, answer] of dispatch.answers) {
      answer.then(
        (a) => {
          if (a.status === 200) this.kick(ip);
        },
        () => undefined,
      );
    }
    return dispatch;
  }

  /** A client connected: try now, and keep retrying while it has commands queued. */
  connected(ip: string): void {
    this.kick(ip);
    this.armSweep();
  }

  /** Try to deliver `ip`'s queued commands now. */
  kick(ip: string): void {
    if (this.stopped) {
      this.elsewhere(ip);
      return;
    }
    if (!this.byIp.has(ip)) return;
    if (this.delivering.has(ip)) {
      // The loop running may have just found the agent busy: it tries again when it ends.
      this.kickedAgain.add(ip);
      return;
    }
    this.delivering.add(ip);
    const run = this.deliver(ip)
      .catch((error: unknown) => this.log.error({ err: error, ip }, 'delivering queued commands failed'))
      .finally(() => {
        this.delivering.delete(ip);
        this.running.delete(run);
        if (this.kickedAgain.delete(ip)) this.kick(ip);
      });
    this.running.add(run);
  }

  /** Resolves when no delivery loop is running (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.resolveStopping();
    this.cancelSweep?.();
    await this.settled();
    // Whoever holds the role next reads the queue from the table.
    this.byIp.clear();
  }

  private async deliver(ip: string): Promise<void> {
    for (;;) {
      // The delivery loop is a worker: each command it sends is a unit of work of its own.
      const em = this.db.fork();
      const list = this.byIp.get(ip);
      const next = list?.[0];
      if (!list || !next) return;
      if (this.expired(next)) {
        this.take(ip, next);
        await this.finish(next.id, 'failure', 'expired before it could be sent', em);
        continue;
      }
      if (this.stopped || !this.link.isConnected(ip)) return;
      const row = await em.findOne(ActionEntity, { id: next.id, state: 'queued' });
      if (!row) {
        this.take(ip, next);
        continue;
      }
      let request: Awaited<ReturnType<StepCommands['request']>>;
      try {
        request = await this.commands.request(row.command, JSON.parse(row.params) as Record<string, unknown>, ip);
      } catch (error) {
        this.take(ip, next);
        await this.finish(next.id, 'failure', (error as Error).message.slice(0, 200), em);
        continue;
      }
      // Marked sent before it leaves: if this instance dies meanwhile, the one that runs the
      // queue next fails it rather than sending it a second time.
      await em.nativeUpdate(ActionEntity, { id: next.id }, { state: 'sent' });
      const dispatch = await this.link.dispatch([ip], request);
      const answer = dispatch.answers.get(ip);
      if (!answer) {
        // Busy or gone: retried on its next answer or by the sweep.
        await em.nativeUpdate(ActionEntity, { id: next.id }, { state: 'queued' });
        return;
      }
      // A job once sent: the tries that found the client busy are retries, not jobs of their own.
      const asker = await askerOf(this.db, row.scheduleId);
      void this.link.observers.observed({ kind: request.path, params: JSON.parse(row.params) as object, asker }, dispatch);
      this.take(ip, next);
      const outcome = await Promise.race([
        answer.then(
          ({ status, result }) =>
            result === 'success'
              ? { result: 'success' as const, note: '' }
              : {
                  result: 'failure' as const,
                  note: status === 200 || status === 202 ? 'the answer could not be stored' : `agent answered ${status}`,
                },
          (error: Error) =>
            error instanceof AgentLinkError && error.reason === 'disconnected' && this.commands.endsWithDisconnect(row.command)
              ? { result: 'success' as const, note: '' }
              : { result: 'failure' as const, note: error.message.slice(0, 200) },
        ),
        this.stopping.then(() => undefined),
      ]);
      // Stopping: the row stays `sent` and the next start marks it failed.
      if (!outcome) return;
      await this.finish(next.id, outcome.result, outcome.note, em);
    }
  }

  private expired(action: QueuedAction): boolean {
    return this.clock.now() - action.queuedAt >= this.timings.pendingTimeoutMs;
  }

  private take(ip: string, action: QueuedAction): void {
    const list = (this.byIp.get(ip) ?? []).filter((a) => a !== action);
    if (list.length) this.byIp.set(ip, list);
    else this.byIp.delete(ip);
  }

  private async finish(id: number, result: ActionResult, note: string, em?: EntityManager): Promise<void> {
    await this.db.unit(em).nativeUpdate(ActionEntity, { id }, { state: 'done', result, note, finishedAt: this.clock.now() });
  }

  /** One timer: the earliest expiry, or the next delivery retry while a connected client waits. */
  private armSweep(): void {
    this.cancelSweep?.();
    this.cancelSweep = undefined;
    if (this.stopped) return;
    let at = Infinity;
    for (const [ip, list] of this.byIp) {
      for (const action of list) at = Math.min(at, action.queuedAt + this.timings.pendingTimeoutMs);
      if (this.link.isConnected(ip)) at = Math.min(at, this.clock.now() + this.timings.retryMs);
    }
    if (at !== Infinity) this.cancelSweep = this.clock.setTimer(at, () => this.sweep());
  }

  /** Mark expired commands failed (for clients not being delivered to), then retry delivery. */
  async sweep(): Promise<void> {
    this.cancelSweep = undefined;
    for (const [ip, list] of [...this.byIp]) {
      if (this.delivering.has(ip)) continue;
      for (const action of list.filter((a) => this.expired(a))) {
        this.take(ip, action);
        await this.finish(action.id, 'failure', 'expired before it could be sent');
      }
    }
    for (const ip of this.byIp.keys()) if (this.link.isConnected(ip)) this.kick(ip);
    this.armSweep();
  }
}
