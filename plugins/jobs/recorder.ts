import type { EntityManager } from '@mikro-orm/core';
import {
  type Clock,
  Database,
  execute,
  GroupCommit,
  inject,
  injectable,
  insertInChunks,
  type Logger,
  PluginConfig,
  PluginEventBus,
  type PluginEvents,
  PluginLog,
} from 'ogserve';
import type { DispatchOrigin, ObservedDispatch } from '../agents';
import type { AuditCommand } from '../audit';
import { Inventory } from '../inventory';
import { JobsClock } from './clock';
import { type JobClient, JobClientEntity } from './entities/job-client';
import { JobEntity } from './entities/job';
import { type Ending, answered, timedOut, unanswered } from './outcome';

export interface JobsTimeouts {
  /** Seconds a command of each kind (agent path) may run; others get `default_timeout_s`. */
  timeouts_s: Record<string, number>;
  /** 0: no timeout of the jobs' own; the agents' command_timeout_s still ends a silent client. */
  default_timeout_s: number;
}

/** A job another plugin follows (`follow`): its id, how to end a client, and the clients not yet ended. */
export interface FollowedJob {
  id: number;
  end(ip: string, ending: Ending): void;
  running(): string[];
}

/** Clients' ends written in one statement at most. */
const chunk = 500;
/** Clients' ends written in one transaction at most (of any jobs). */
const batchSize = 2000;

/** A job whose clients have not all ended, in memory on the instance that sent it. */
interface LiveJob {
  id: number;
  kind: string;
  clients: string[];
  running: Set<string>;
  /** Its last end written (or failed): its own end is written with its last client's. */
  writing: Promise<void>;
  cancelTimeout?: () => void;
}

/** A client's end waiting for its batch; its job's last carries the job's own end. */
interface PendingEnd {
  job: LiveJob;
  ip: string;
  ending: Ending;
  at: number;
  finishes: boolean;
}

/**
 * Makes each command sent on the command path a job (the agents plugin's dispatch
 * observer): its row and one per client, written before the caller answers, so the answer
 * carries the job's id. Then follows each sent client to its end (answered, failed, timed
 * out by the link or by the job's own timeout), writing and announcing every change.
 */
@injectable()
export class JobRecorder {
  private readonly live = new Set<LiveJob>();
  private stopped = false;
  private readonly ends: GroupCommit<PendingEnd, undefined>;

  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Inventory) private readonly inventory: Inventory,
    @inject(PluginEventBus) private readonly events: PluginEvents,
    @inject(PluginConfig) private readonly timeouts: JobsTimeouts,
    @inject(JobsClock) private readonly clock: Clock,
    @inject(PluginLog) private readonly log: Logger,
  ) {
    this.ends = new GroupCommit(db, (em, ends) => this.writeEnds(em, ends), batchSize);
  }

  /** The observer: the job's id, or undefined when it could not be written (the command went all the same). */
  async observe(dispatch: ObservedDispatch): Promise<number | undefined> {
    if (this.stopped) return undefined;
    try {
      return await this.record(dispatch);
    } catch (error) {
      this.log.error({ err: error, kind: dispatch.kind }, 'job not recorded');
      return undefined;
    }
  }

  /**
   * Ends a client of a job this instance follows with what another plugin learned first (a PC
   * dropped from a multicast stream fails before its agent answers); a client already ended,
   * or a job followed elsewhere, is left as it is. The agent's answer, when it comes, is then
   * not written over it.
   */
  endClient(jobId: number, ip: string, ending: Ending): void {
    for (const job of this.live) if (job.id === jobId) this.ended(job, ip, ending);
  }

  /** Stop following: clients still running stay `sent` in the table. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const job of this.live) job.cancelTimeout?.();
    await Promise.all([...this.live].map((job) => job.writing));
    this.live.clear();
  }

  /**
   * A job whose clients another plugin ends itself (a wake run: its clients end as their
   * agents connect or not): written with every client `sent`, and ended client by client
   * with `end`. Undefined when the job could not be written (or the recorder stopped).
   */
  async follow(origin: DispatchOrigin, ips: string[]): Promise<FollowedJob | undefined> {
    if (this.stopped) return undefined;
    try {
      const { id, running } = await this.insert(
        origin,
        ips.map((addr) => ({ addr, outcome: 'sent' as const })),
      );
      const job: LiveJob = { id, kind: origin.kind, clients: ips, running, writing: Promise.resolve() };
      if (running.size > 0) this.live.add(job);
      return { id, end: (ip, ending) => this.ended(job, ip, ending), running: () => [...job.running] };
    } catch (error) {
      this.log.error({ err: error, kind: origin.kind }, 'job not recorded');
      return undefined;
    }
  }

  private async record(dispatch: ObservedDispatch): Promise<number> {
    const { id, running, created } = await this.insert(dispatch, dispatch.outcomes);
    const ips = dispatch.outcomes.map((o) => o.addr);
    if (running.size === 0) return id;
    const job: LiveJob = { id, kind: dispatch.kind, clients: ips, running, writing: Promise.resolve() };
    this.live.add(job);
    for (const [ip, answer] of dispatch.answers) {
      answer.then(
        (a) => this.ended(job, ip, answered(a)),
        (error: unknown) => this.ended(job, ip, unanswered(error, dispatch.endsWithDisconnect)),
      );
    }
    const seconds = this.timeouts.timeouts_s[dispatch.kind] ?? this.timeouts.default_timeout_s;
    if (seconds > 0) {
      job.cancelTimeout = this.clock.setTimer(created + seconds * 1000, async () => {
        for (const ip of [...job.running]) this.ended(job, ip, timedOut(seconds));
        await job.writing;
      });
    }
    return id;
  }

  /** The job's row and one per client, in one transaction, then told: its id, the clients sent and when it was made. */
  private async insert(
    origin: DispatchOrigin,
    outcomes: ObservedDispatch['outcomes'],
  ): Promise<{ id: number; running: Set<string>; created: number }> {
    const now = this.clock.now();
    const ips = outcomes.map((o) => o.addr);
    const known = new Map((await this.inventory.clientsByIps(ips)).map((c) => [c.ip, c]));
    const rows = outcomes.map(({ addr, outcome }) => {
      const sent = outcome === 'sent';
      return {
        ip: addr,
        room: known.get(addr)?.room.id ?? 0,
        state: sent ? ('sent' as const) : ('skipped' as const),
        reason: sent ? '' : outcome,
        status: null,
        outcome: sent ? '' : outcome === 'busy' ? 'the client was busy' : 'the client is not connected',
        sentAt: sent ? now : null,
        endedAt: sent ? null : now,
        code: null,
        output: null,
      };
    });
    const running = new Set(rows.filter((r) => r.state === 'sent').map((r) => r.ip));
    const id = await this.db.transactional(async (em) => {
      const jobId = (await em.insert(JobEntity, {
        kind: origin.kind,
        who: origin.asker?.name ?? '',
        source: origin.asker?.source ?? '',
        params: JSON.stringify(origin.params),
        createdAt: now,
        finishedAt: running.size === 0 ? now : null,
      })) as number;
      await insertInChunks<JobClient>(
        em,
        JobClientEntity,
        rows.map((r) => ({ ...r, jobId }) as JobClient),
      );
      return jobId;
    });
    const request = origin.asker?.request;
    if (request) {
      // The request's audit entry names the job and its PCs (told before the request answers).
      const command: AuditCommand = {
        job: id,
        kind: origin.kind,
        clients: ips.map((ip) => {
          const client = known.get(ip);
          return client ? { ip, id: client.id, name: client.name } : { ip };
        }),
      };
      await this.events.tell('audit.details', { req: request, command });
    }
    const who = origin.asker?.name ?? null;
    void this.events.emit('job.created', { job: id, kind: origin.kind, who, source: origin.asker?.source ?? null, clients: ips });
    for (const r of rows)
      void this.events.emit('job.client', { job: id, kind: origin.kind, client: r.ip, state: r.state, status: null, outcome: r.outcome });
    if (running.size === 0) void this.events.emit('job.finished', { job: id, kind: origin.kind, clients: ips });
    return { id, running, created: now };
  }

  /**
   * A client's end: written, told, and the job's end once it was the last. A client already
   * ended is left as it is. Ends are written behind, those of all jobs that come while a batch
   * is written together (core's group commit), one statement for those of a job alike: a wake
   * run's thousands of PCs not up after `wol.verify_s` end within moments of each other, and
   * one statement each held the database for seconds.
   */
  private ended(job: LiveJob, ip: string, ending: Ending): void {
    if (this.stopped || !job.running.delete(ip)) return;
    const finishes = job.running.size === 0;
    if (finishes) job.cancelTimeout?.();
    job.writing = this.ends.add({ job, ip, ending, at: this.clock.now(), finishes }).catch((error: unknown) => {
      this.log.error({ err: error, job: job.id }, 'job state not written');
      if (finishes) this.live.delete(job);
    });
  }

  /** A batch of ends, with the end of each job whose last client is among them; told once committed. */
  private async writeEnds(em: EntityManager, ends: PendingEnd[]): Promise<undefined[]> {
    const alike = new Map<string, { job: LiveJob; ending: Ending; ends: { ip: string; at: number }[] }>();
    for (const { job, ip, ending, at } of ends) {
      const key = JSON.stringify([job.id, ending.state, ending.status, ending.outcome, ending.code, ending.output]);
      const group = alike.get(key) ?? { job, ending, ends: [] };
      group.ends.push({ ip, at });
      alike.set(key, group);
    }
    for (const group of alike.values())
      for (let i = 0; i < group.ends.length; i += chunk) await writeAlike(em, group.job.id, group.ending, group.ends.slice(i, i + chunk));
    const finished = ends.filter((end) => end.finishes);
    for (const { job, at } of finished) await em.nativeUpdate(JobEntity, { id: job.id }, { finishedAt: at });
    this.db.afterCommit(em, () => {
      // A command's output is not told: only callers who may run scripts read it (GET /jobs/:id/output).
      for (const { job, ip, ending } of ends) {
        const { state, status, outcome, code } = ending;
        const told = { job: job.id, kind: job.kind, client: ip, state, status, outcome };
        void this.events.emit('job.client', code === undefined ? told : { ...told, code });
      }
      for (const { job } of finished) {
        void this.events.emit('job.finished', { job: job.id, kind: job.kind, clients: job.clients });
        // Kept in `live` until here, so that stop() waits for this too.
        this.live.delete(job);
      }
    });
    return ends.map(() => undefined);
  }
}

/** Clients of a job that ended alike, each at its own time: one statement (the times by address in a case, as integers). */
async function writeAlike(em: EntityManager, jobId: number, ending: Ending, ends: { ip: string; at: number }[]): Promise<void> {
  const cases = ends.map(({ at }) => `when ? then ${Math.trunc(at)}`).join(' ');
  await execute(
    em,
    `update job_clients set state = ?, status = ?, outcome = ?, code = ?, output = ?, ended_at = case ip ${cases} end where job_id = ? and ip in (${ends.map(() => '?').join(', ')})`,
    [
      ending.state,
      ending.status,
      ending.outcome,
      ending.code ?? null,
      ending.output ?? null,
      ...ends.map((e) => e.ip),
      jobId,
      ...ends.map((e) => e.ip),
    ],
  );
}
