import type { EntityManager } from '@mikro-orm/core';
import { stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { Static } from '@sinclair/typebox';
import {
  Database,
  ErrorCode,
  HttpError,
  type Logger,
  PluginConfig,
  PluginEventBus,
  type PluginEvents,
  PluginLog,
  badRequest,
  inject,
  injectable,
  insertInChunks,
  ipv4ToInt,
} from 'ogserve';
import type { Dispatch } from '../agents';
import type { MethodRestore, PreparedMethodRestore, RestoreMethod } from '../images';
import type { ClientView } from '../inventory';
import { type SessionClient, SessionClientEntity } from './entities/session-client';
import { type Session, SessionEntity, liveStates } from './entities/session';
import { MulticastMetrics } from './metrics';
import { type RoomNetwork, senderInterface } from './network';
import type { MulticastConfig } from './schemas';
import { SenderProcess } from './sender';
import type { StampedFact } from './sender-log';
import { type LiveClient, type RunChanges, SessionRun, endedStates } from './session-run';

export type MulticastSettings = Static<typeof MulticastConfig>;

/** A session this instance runs: its row, what its sender said so far, and its sender. */
export interface LiveSession {
  row: Session;
  run: SessionRun;
  /** The image file it sends. */
  file: string;
  sender?: SenderProcess;
  /** Set when it is stopped on purpose (a cancel, ogserve stopping): how it then ends. */
  stopping?: { state: 'cancelled' | 'failed'; reason: string };
  /** Its writes, one after the other. */
  writing: Promise<void>;
  lastProgressWrite: number;
  told: { bytes: number; retransmits: number };
  /** PCs whose end was told to their job. */
  toldJob: Set<string>;
  /** The jobs of its restores, once their ids are known (a PC's end is told to its job). */
  jobsKnown: Promise<unknown>[];
  ended: Promise<void>;
  end: () => void;
}

/** The facts of one restore for one room: the PCs it sends to, in which session, and whether that one already ran. */
interface RoomPlan {
  session: LiveSession;
  ips: string[];
  joined: boolean;
}

/** How often a running session's bytes and rate are written (they are read from memory meanwhile). */
const progressWriteMs = 2000;
/** How long a PC's 200 answer waits for its sender's last word on it (the stream's end reaches ogserve by the sender's pipe). */
const answerWaitMs = 15_000;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The multicast sessions: POST /image/restore of type MULTICAST (the images plugin asks this,
 * its restore method) makes one session per room, or joins the PCs to the room's session for
 * that image while its sender still waits; the sender starts once the agents are sent the
 * restore, with as many receivers to wait for as were sent it. What the sender says is
 * written, told as events, counted, and a PC's failure ends its line in the restore's job.
 */
@injectable()
export class MulticastSessions implements RestoreMethod {
  readonly type = 'MULTICAST';
  private readonly live = new Map<number, LiveSession>();
  /** prepare() runs one at a time: two requests for one image and room never make two senders. */
  private preparing: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(
    @inject(Database) private readonly db: Database,
    @inject(PluginConfig) private readonly config: MulticastSettings,
    @inject(PluginLog) private readonly log: Logger,
    @inject(PluginEventBus) private readonly events: PluginEvents,
    @inject(MulticastMetrics) private readonly metrics: MulticastMetrics,
  ) {}

  /** The session `id` when this instance runs it. */
  running(id: number): LiveSession | undefined {
    return this.live.get(id);
  }

  runningSessions(): LiveSession[] {
    return [...this.live.values()];
  }

  prepare(restore: MethodRestore): Promise<PreparedMethodRestore> {
    const next = this.preparing.then(() => this.prepareNow(restore));
    this.preparing = next.catch(() => undefined);
    return next;
  }

  private async prepareNow(restore: MethodRestore): Promise<PreparedMethodRestore> {
    if (this.stopped) throw new HttpError(503, 'stopping', 'the server is stopping');
    const plans: RoomPlan[] = [];
    try {
      for (const group of this.byRoom(restore)) plans.push(await this.planRoom(restore, group));
    } catch (error) {
      for (const plan of plans) if (!plan.joined) this.abandon(plan.session);
      throw error;
    }
    const portOf = new Map(plans.flatMap((plan) => plan.ips.map((ip) => [ip, plan.session.row.port] as const)));
    return {
      agentType: (ip) => `MULTICAST:${portOf.get(ip)}`,
      sent: async (dispatch) => {
        await Promise.all(plans.map((plan) => this.sent(plan, dispatch)));
      },
      abandoned: () => {
        for (const plan of plans) if (!plan.joined) this.abandon(plan.session);
      },
    };
  }

  /** The clients by room, each room with its network; refuses a client the inventory does not know or a room without one network. */
  private byRoom(restore: MethodRestore): { net: RoomNetwork; ips: string[] }[] {
    const rooms = new Map<number, { net: RoomNetwork; ips: string[]; client: ClientView }>();
    for (const ip of restore.ips) {
      const client = restore.clients.get(ip);
      if (!client) throw badRequest(ErrorCode.unknownId, `a multicast restore goes to PCs of the inventory: ${ip} is none`, 'clients');
      const netmask = client.netmask || client.room.netmask;
      if (!netmask)
        throw badRequest(
          ErrorCode.invalidField,
          `room '${client.room.name}' has no netmask: its network, where the stream goes, is unknown`,
          'clients',
        );
      const room = rooms.get(client.room.id);
      if (!room) {
        rooms.set(client.room.id, { net: { roomId: client.room.id, roomName: client.room.name, ip, netmask }, ips: [ip], client });
        continue;
      }
      const mask = ipv4ToInt(room.net.netmask);
      if ((ipv4ToInt(ip) & mask) !== (ipv4ToInt(room.net.ip) & mask))
        throw badRequest(
          ErrorCode.invalidField,
          `${ip} and ${room.net.ip} are both in room '${client.room.name}' but not in one network: a multicast stream reaches one network`,
          'clients',
        );
      room.ips.push(ip);
    }
    return [...rooms.values()];
  }

  /** The room's session for the image: the one whose sender still waits (joined), else a new one. */
  private async planRoom(restore: MethodRestore, group: { net: RoomNetwork; ips: string[] }, em?: EntityManager): Promise<RoomPlan> {
    const { image } = restore;
    const { roomId, roomName } = group.net;
    const mine = [...this.live.values()].find((s) => s.row.imageId === image.id && s.row.roomId === roomId);
    const other = mine ?? (await this.db.unit(em).findOne(SessionEntity, { imageId: image.id, roomId, state: { $in: [...liveStates] } }));
    if (mine && mine.run.state === 'waiting' && !mine.stopping) return { session: mine, ips: group.ips, joined: true };
    if (other) {
      const row = 'row' in other ? other.row : other;
      const state = 'run' in other ? other.run.state : other.state;
      const where = row.host && row.host !== hostname() ? ` on ${row.host}` : '';
      throw badRequest(
        ErrorCode.conflict,
        `multicast session ${row.id} already sends image '${image.name}' to room '${roomName}'${where} (${state}): wait for it, or cancel it with DELETE /multicast/sessions/${row.id}`,
        'clients',
      );
    }
    const file = image.file;
    const size =
      file === undefined
        ? undefined
        : await stat(file).then(
            (s) => (s.isFile() ? s.size : undefined),
            () => undefined,
          );
    if (file === undefined || size === undefined)
      throw badRequest(
        ErrorCode.invalidField,
        `image '${image.name}' has no file in the repository directory, which a multicast session sends`,
        'id',
      );
    const sender = senderInterface(group.net, this.config.interfaces[String(roomId)]);
    const port = await this.freePort(em);
    const now = Date.now();
    const row = {
      imageId: image.id,
      imageName: image.name,
      roomId,
      roomName,
      jobId: null,
      state: 'waiting' as const,
      reason: '',
      port,
      address: sender.address,
      device: sender.device,
      minReceivers: 0,
      size,
      bytes: 0,
      retransmits: 0,
      rate: 0,
      params: JSON.stringify(restore.params),
      who: restore.asker?.name ?? '',
      host: hostname(),
      createdAt: now,
      startedAt: null,
      finishedAt: null,
    };
    const id = (await this.db.unit(em).insert(SessionEntity, row)) as number;
    let end = () => {};
    const ended = new Promise<void>((resolve) => (end = resolve));
    const session: LiveSession = {
      row: { id, ...row },
      run: new SessionRun(size),
      file,
      writing: Promise.resolve(),
      lastProgressWrite: 0,
      told: { bytes: 0, retransmits: 0 },
      toldJob: new Set(),
      jobsKnown: [],
      ended,
      end,
    };
    session.run.device = sender.device;
    this.live.set(id, session);
    return { session, ips: group.ips, joined: false };
  }

  /** The first port pair of `multicast.ports` no session in the database holds. */
  private async freePort(em?: EntityManager): Promise<number> {
    const from = Number(this.config.ports.from);
    const to = Number(this.config.ports.to);
    const rows = await this.db.unit(em).find(SessionEntity, { state: { $in: [...liveStates] } }, { fields: ['port'] });
    const taken = new Set([...rows.map((r) => r.port), ...[...this.live.values()].map((s) => s.row.port)]);
    for (let port = from; port + 1 <= to; port += 2) if (!taken.has(port)) return port;
    throw new HttpError(503, 'no_port', `every port pair of multicast.ports (${from}-${to}) is taken by a running session`);
  }

  /** The restore went out: each PC of the room expected or skipped, the job noted, and the sender started for a new session. */
  private async sent(plan: RoomPlan, dispatch: Dispatch): Promise<void> {
    const { session } = plan;
    const now = Date.now();
    const added: LiveClient[] = [];
    for (const { addr, outcome } of dispatch.outcomes) {
      if (!plan.ips.includes(addr)) continue;
      const client = session.run.add(addr, outcome === 'sent' ? 'expected' : 'skipped', outcome === 'sent' ? '' : outcome, null, now);
      // Joined to a session that ended meanwhile (its sender gave up waiting): it will never stream to it.
      if (client.state === 'expected' && !session.run.live) {
        client.state = 'missing';
        client.reason = `the session had ${session.run.state === 'done' ? 'ended' : session.run.state} when it was sent the restore`;
        client.endedAt = now;
      }
      added.push(client);
    }
    this.write(session, async (em) => {
      await insertInChunks<SessionClient>(
        em,
        SessionClientEntity,
        added.map((c) => ({ sessionId: session.row.id, ...clientColumns(c), ip: c.ip }) as SessionClient),
      );
    });
    for (const client of added)
      if (client.state === 'skipped' || client.state === 'missing') this.metrics.clients.inc({ state: client.state });
    const known = (dispatch.job ?? Promise.resolve(undefined)).then((job) => {
      if (job === undefined) return;
      for (const client of added) client.jobId = job;
      if (session.row.jobId === null) session.row.jobId = job;
      this.write(session, async (em) => {
        await em.nativeUpdate(SessionEntity, { id: session.row.id, jobId: null }, { jobId: job });
        await em.nativeUpdate(SessionClientEntity, { sessionId: session.row.id, ip: { $in: added.map((c) => c.ip) } }, { jobId: job });
      });
      for (const client of added) this.tellJob(session, client);
    });
    session.jobsKnown.push(known);
    if (!plan.joined) this.start(session, added.filter((c) => c.state === 'expected').length);
    // The restore answers once the session's rows name its job (GET /multicast/sessions?job= finds it).
    await known;
    await session.writing;
  }

  private start(session: LiveSession, sent: number): void {
    const { row } = session;
    if (session.stopping || sent === 0) {
      const reason = session.stopping?.reason ?? 'none of its PCs could be sent the restore (busy or not connected)';
      this.apply(session, session.run.never(reason, Date.now()));
      this.finish(session);
      return;
    }
    const wanted = this.config.min_receivers;
    row.minReceivers = wanted > 0 ? Math.min(wanted, sent) : sent;
    this.write(session, (em) => em.nativeUpdate(SessionEntity, { id: row.id }, { minReceivers: row.minReceivers }).then(() => {}));
    const options = {
      program: this.config.udp_sender,
      file: session.file,
      port: row.port,
      address: row.address,
      minReceivers: row.minReceivers,
      maxWaitS: this.config.max_wait_s,
      retriesUntilDrop: this.config.retries_until_drop,
      maxBitrate: this.config.max_bitrate,
    };
    session.sender = new SenderProcess(options, { dir: this.config.directory, session: row.id }, (fact) => this.fact(session, fact));
    this.metrics.running.inc();
    this.announce(session);
    this.log.info(
      { session: row.id, image: row.imageName, room: row.roomId, port: row.port, address: row.address, pid: session.sender.pid },
      `multicast session ${row.id}: udp-sender sends '${row.imageName}' to room '${row.roomName}' from ${row.address}:${row.port}, waiting for ${row.minReceivers} PC(s)`,
    );
    void session.sender.exited.then((exit) => {
      this.metrics.running.dec();
      this.apply(session, session.run.exit(exit, Date.now(), session.stopping, this.config.max_wait_s));
      this.finish(session);
    });
  }

  private fact(session: LiveSession, fact: StampedFact): void {
    this.apply(session, session.run.fact(fact, Date.now()));
  }

  /** What changed: written, told, counted; a PC's failure ends its job line. */
  private apply(session: LiveSession, changes: RunChanges): void {
    const { run, row } = session;
    if (changes.session) {
      const { state, reason } = changes.session;
      row.state = state;
      row.reason = reason;
      const columns = { state, reason, startedAt: run.startedAt, device: run.device };
      this.write(session, (em) => em.nativeUpdate(SessionEntity, { id: row.id }, columns).then(() => {}));
      if (state === 'sending') this.announce(session);
    }
    for (const client of changes.clients) {
      const columns = clientColumns(client);
      this.write(session, (em) => em.nativeUpdate(SessionClientEntity, { sessionId: row.id, ip: client.ip }, columns).then(() => {}));
      void this.events.emit('multicast.client', {
        session: row.id,
        job: client.jobId,
        client: client.ip,
        state: client.state,
        reason: client.reason,
        bytes: client.bytes,
      });
      if (endedStates.includes(client.state)) this.metrics.clients.inc({ state: client.state });
      this.tellJob(session, client);
    }
    if (changes.progressed) {
      this.metrics.bytes.inc(Math.max(0, run.bytes - session.told.bytes));
      this.metrics.retransmits.inc(Math.max(0, run.retransmits - session.told.retransmits));
      session.told = { bytes: run.bytes, retransmits: run.retransmits };
      const now = Date.now();
      if (now - session.lastProgressWrite >= progressWriteMs) {
        session.lastProgressWrite = now;
        this.writeProgress(session);
      }
    }
  }

  private writeProgress(session: LiveSession): void {
    const { run, row } = session;
    const columns = { bytes: run.bytes, retransmits: run.retransmits, rate: run.rate };
    this.write(session, (em) => em.nativeUpdate(SessionEntity, { id: row.id }, columns).then(() => {}));
  }

  /** A PC that failed in the stream fails in its job at once; a PC done in it waits for its agent's answer (the restore is more than the stream). */
  private tellJob(session: LiveSession, client: LiveClient): void {
    if (client.jobId === null || session.toldJob.has(client.ip)) return;
    const outcome = jobOutcome(session, client);
    if (outcome === undefined) return;
    session.toldJob.add(client.ip);
    void this.events.tell('job.client.ended', { job: client.jobId, client: client.ip, state: 'failed', outcome });
  }

  /** The session ended: its last figures written, told, logged; then it leaves memory. */
  private finish(session: LiveSession): void {
    const { run, row } = session;
    const columns = {
      state: run.state,
      reason: run.reason,
      bytes: run.bytes,
      retransmits: run.retransmits,
      rate: run.rate,
      finishedAt: run.finishedAt,
    };
    this.write(session, (em) => em.nativeUpdate(SessionEntity, { id: row.id }, columns).then(() => {}));
    this.metrics.sessions.inc({ state: run.state });
    this.announce(session);
    const counts = countStates([...run.clients.values()]);
    const line = `multicast session ${row.id} (image '${row.imageName}', room '${row.roomName}') ${run.state}${run.reason ? `: ${run.reason}` : ''}`;
    const fields = { session: row.id, image: row.imageName, room: row.roomId, state: run.state, clients: counts, bytes: run.bytes };
    if (run.state === 'done' && !counts.dropped && !counts.missing) this.log.info(fields, line);
    else this.log.warn(fields, line);
    void session.writing.then(() => {
      this.live.delete(row.id);
      session.end();
    });
  }

  private announce(session: LiveSession): void {
    const { run, row } = session;
    void this.events.emit('multicast.session', {
      session: row.id,
      image: row.imageId,
      name: row.imageName,
      room: row.roomId,
      state: run.state,
      reason: run.reason,
      job: row.jobId,
      clients: [...run.clients.keys()],
      bytes: run.bytes,
      rate: run.rate,
    });
  }

  private write(session: LiveSession, write: (em: EntityManager) => Promise<void>): void {
    session.writing = session.writing
      // Each queued write in a unit of work of its own: the queue runs after its callers moved on.
      .then(() => write(this.db.fork()))
      .catch((error: unknown) => this.log.error({ err: error, session: session.row.id }, 'multicast session not written'));
  }

  /** A session prepared for a restore that could not be sent: it never ran. */
  private abandon(session: LiveSession): void {
    this.apply(session, session.run.never('the restore could not be sent', Date.now()));
    this.finish(session);
  }

  /** Stop a session this instance runs: its sender ends, each PC still in it is told so. Resolves once it is written. */
  async cancel(session: LiveSession, reason: string): Promise<void> {
    session.stopping ??= { state: 'cancelled', reason };
    await session.sender?.stop();
    await session.ended;
  }

  /** ogserve stops: every sender ends with it, and its sessions fail saying so. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(
      [...this.live.values()].map(async (session) => {
        session.stopping ??= { state: 'failed', reason: 'ogserve stopped before the stream ended' };
        if (session.sender) await session.sender.stop();
        else if (!session.run.finishedAt) this.abandon(session);
        await session.ended;
      }),
    );
  }

  /**
   * A PC answered its multicast restore with 200: it stands only if the whole stream reached
   * it. Its sender's word on it may come a moment after the answer (by another pipe), so an
   * answer waits for it a little.
   */
  async answered(client: ClientView, agentType: string, given?: EntityManager): Promise<void> {
    const port = Number(agentType.split(':')[1]);
    const session = [...this.live.values()].find((s) => s.row.port === port && s.run.clients.has(client.ip));
    let state: string | undefined;
    let reason = '';
    let id: number | undefined;
    if (session) {
      // The answer may come before its job is written: what is told of the PC goes to that job.
      await Promise.all(session.jobsKnown);
      const line = session.run.clients.get(client.ip)!;
      // Only a PC in the stream may be waited for: one that never joined it will not now.
      for (let waited = 0; line.state === 'joined' && session.run.live && waited < answerWaitMs; waited += 100)
        await new Promise((resolve) => setTimeout(resolve, 100));
      ({ state, reason } = line);
      id = session.row.id;
      if (!endedStates.includes(line.state)) {
        // It says it restored, but never took (or finished) the stream: its ogLive has no multicast hook, or the hook failed.
        line.state = 'failed';
        line.reason =
          line.joinedAt === null ? 'its agent answered before it joined the stream' : 'its agent answered before the stream ended';
        line.endedAt = Date.now();
        this.apply(session, { clients: [line] });
        ({ state, reason } = line);
      }
    } else {
      const em = this.db.unit(given);
      const rows = await em.find(SessionEntity, { port }, { orderBy: { id: 'desc' }, limit: 5 });
      for (const row of rows) {
        const line = await em.findOne(SessionClientEntity, { sessionId: row.id, ip: client.ip });
        if (line) {
          ({ state, reason } = line);
          id = row.id;
          break;
        }
      }
    }
    if (state === 'done') return;
    throw new Error(
      id === undefined
        ? `no multicast session on port ${port} sent to ${client.ip}`
        : `${client.ip} did not receive the whole stream of multicast session ${id} (${state}${reason ? `: ${reason}` : ''})`,
    );
  }
}

/** The columns of a session PC's row. */
function clientColumns(c: LiveClient) {
  return { state: c.state, reason: c.reason, slow: c.slow, bytes: c.bytes, joinedAt: c.joinedAt, endedAt: c.endedAt, jobId: c.jobId };
}

/** What a PC's job line says when the stream failed it; undefined while it is in the stream, done in it, or skipped (its job says so). */
export function jobOutcome(session: LiveSession, client: LiveClient): string | undefined {
  const id = session.row.id;
  const at = client.endedAt === null ? '' : ` at ${iso(client.endedAt)}`;
  switch (client.state) {
    case 'dropped':
      return `dropped from multicast session ${id} (${client.reason})${at}, after ${client.bytes} of ${session.row.size} bytes`;
    case 'missing':
      return `did not join multicast session ${id} before its stream started${client.reason ? ` (${client.reason})` : ''}`;
    case 'cancelled':
      return `multicast session ${id} was ${client.reason || 'cancelled'}`;
    case 'failed':
      return `multicast session ${id} failed: ${client.reason}`;
    default:
      return undefined;
  }
}

export function countStates(clients: { state: string }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const { state } of clients) out[state] = (out[state] ?? 0) + 1;
  return out;
}
