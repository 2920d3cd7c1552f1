import net, { type Server, type Socket } from 'node:net';
import {
  inject,
  injectable,
  type Logger,
  PluginClusterView,
  PluginConfig,
  PluginEventBus,
  PluginLog,
  type PluginCluster,
  type PluginContext,
  type PluginEvents,
  PreparedJson,
  stringifyAscii,
} from 'ogserve';
import { QuietCollector } from './quiet-collector';
import { type ClientView, Inventory } from '../inventory';
import { LinkAnnouncer } from './announce';
import { DispatchObservers } from './observers';
import { logCommandFailure } from './command-failures';
import { AnswerParsing } from './answer-parsing';
import { AgentConnection, type ConnectionOwner, type Pending } from './connection';
import { agentConnectionCap, descriptorLimit } from './descriptors';
import { type GuestGate, GuestLink } from './guests';
import { LookupBatch } from './lookup-batch';
import { ProbeSweep } from './probe-sweep';
import { type AgentReport, type Origin, RemoteAgents } from './remote';
import { readEvent, readProbe } from './states';
import { ThrottledPerAddress, ThrottledWarning } from './throttled-warning';
import type { AgentAnswer, AgentRequest, ClientListing, Dispatch, LastResult, Outcome } from './types';

export interface AgentLinkSettings {
  ip: string;
  port: number;
  probe_interval_s: number;
  probe_timeout_s: number;
  command_timeout_s: number;
  max_answer_bytes: number;
  max_answer_values: number;
  answer_timeout_s: number;
  connect_timeout_s: number;
  fd_reserve: number;
  saturation_log_interval_s: number;
  peer_log_interval_s: number;
}

/**
 * Stores what a 200 answer says; `request` is what was sent (the answer may not echo it).
 * Answering 'failure' says the command itself failed though its answer was stored (a script
 * that exited non-zero): last_cmd.result is then 'failure', with nothing logged as unstored.
 */
export type AnswerHandler = (
  client: ClientView,
  answer: AgentAnswer,
  request: AgentRequest,
  // biome-ignore lint/suspicious/noConfusingVoidType: a handler that only stores returns nothing
) => void | 'failure' | Promise<void | 'failure'>;

/** What GET /clients lists: other plugins' entries, agents held here, [address, entry JSON] of those held elsewhere. */
type Listed = ClientListing | AgentConnection | HeldElsewhere;
type HeldElsewhere = readonly [ip: string, json: string];
const heldElsewhere = (item: Listed): item is HeldElsewhere => Array.isArray(item);

/** Whether two lists hold the same strings, compared by identity first (kept texts are the same string). */
function sameTexts(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The request every agent gets on connect, as the reference. */
const refreshRequest: AgentRequest = { method: 'GET', path: 'refresh' };
/** Linux keepalive idle time of the reference (60 s). */
const keepAliveMs = 60_000;
/**
 * A full collection after this many connections closed, once none closed for the quiet time:
 * a lab or a site switched off, not the day's comings and goings (which V8 handles).
 */
const departuresBeforeCollection = 1000;
const quietBeforeCollectionMs = 5000;

/**
 * The live link to every client's agent: the agent listener, the connection per client,
 * the states shown by GET /clients, and the service other plugins send commands through.
 * It knows no domain: plugins register what they store from each answer.
 */
@injectable()
export class AgentLink {
  private readonly connections = new Map<string, AgentConnection>();
  private readonly handlers = new Map<string, AnswerHandler[]>();
  /** Paths the agent answers by closing its connection (stop). */
  private readonly endedByDisconnect = new Set<string>();
  /** Who follows the commands sent on the command path (the jobs plugin). */
  readonly observers: DispatchObservers;
  private readonly listings: (() => Iterable<ClientListing>)[] = [];
  private readonly owner: ConnectionOwner;
  private readonly lookups: LookupBatch;
  private server?: Server;
  private boundPort = 0;
  private probeSweep?: ProbeSweep;
  private readonly refused: ThrottledWarning;
  private readonly acceptFailed: ThrottledWarning;
  private readonly strangers: ThrottledPerAddress;
  private readonly badEvents: ThrottledPerAddress;
  private connectionCap = 0;
  private readonly unsettled = new Set<Promise<unknown>>();
  private readonly announce: LinkAnnouncer;
  /** The agents other instances hold (none when this one is alone). */
  private readonly remote: RemoteAgents;
  /** The last whole GET /clients answer, with the entries' texts it was written from. */
  private lastListing?: { parts: string[]; body: PreparedJson };
  /** Gives back the memory of many closed connections once the link goes quiet (a lab switched off). */
  private readonly departures: QuietCollector;
  private readonly parsing: AnswerParsing;
  private readonly settings: AgentLinkSettings;
  /** Agents from addresses no client has that another plugin took (admitStrangers). */
  private readonly guests: GuestLink;

  constructor(
    /** The `agents` section: `port` may be written as digits in a string. */
    @inject(PluginConfig) config: Omit<AgentLinkSettings, 'port'> & { port: number | string },
    @inject(Inventory) inventory: Inventory,
    @inject(PluginLog) private readonly log: Logger,
    @inject(PluginEventBus) events: PluginEvents,
    @inject(PluginClusterView) private readonly cluster: PluginCluster,
  ) {
    const settings = { ...config, port: Number(config.port) };
    this.settings = settings;
    this.observers = new DispatchObservers((path) => this.endedByDisconnect.has(path), log);
    this.announce = new LinkAnnouncer(events, log, (path) => this.endedByDisconnect.has(path));
    this.remote = new RemoteAgents(
      cluster,
      {
        entries: () => this.ownEntries(),
        dispatchHere: (ips, request, origin) => this.dispatchHere(ips, request, origin),
        store: (ip, request, answer) =>
          this.settling(
            this.lookups.clientByIp(ip).then((client) => (client ? this.store(client, request, answer) : ('failure' as const))),
          ),
        report: (ip, report) => this.reported(ip, report),
        idle: (ip) => void events.tell('agent.idle', { client: ip }),
      },
      log,
    );
    this.lookups = new LookupBatch(inventory);
    this.departures = new QuietCollector(departuresBeforeCollection, quietBeforeCollectionMs, (report) =>
      log.info(report, `${report.deaths} agent connections closed: memory collected in ${report.ms} ms`),
    );
    const intervalMs = settings.saturation_log_interval_s * 1000;
    this.refused = new ThrottledWarning(
      log,
      intervalMs,
      (count) =>
        `agent listener full: ${count} connection(s) refused at the cap of ${this.connectionCap} agents (descriptor limit less agents.fd_reserve); ` +
        'agents retry; raise the limit (LimitNOFILE) to hold more',
    );
    this.acceptFailed = new ThrottledWarning(
      log,
      intervalMs,
      (count) => `agent listener could not accept ${count} connection(s): out of file descriptors`,
    );
    const peerIntervalMs = settings.peer_log_interval_s * 1000;
    this.strangers = new ThrottledPerAddress(
      log,
      peerIntervalMs,
      (count, seconds) => `agent connection from an address no client has; closed ${count} more time(s) within ${seconds} s`,
    );
    this.badEvents = new ThrottledPerAddress(
      log,
      peerIntervalMs,
      (count, seconds) => `agent event ignored ${count} more time(s) within ${seconds} s`,
    );
    events.on('client.removed', (client) => this.clientRemoved(client));
    events.on(
      'client.saved',
      (client) => {
        const conn = this.connections.get(client.ip);
        if (conn && conn.client.id === client.id) conn.client = client;
      },
      "update its agent's connection",
    );
    this.parsing = new AnswerParsing(settings.max_answer_values, log);
    this.guests = new GuestLink(log, this.parsing, {
      commandTimeoutMs: (settings.connect_timeout_s || settings.command_timeout_s) * 1000,
      answerTimeoutMs: settings.answer_timeout_s * 1000,
      maxAnswerBytes: settings.max_answer_bytes,
    });
    this.owner = {
      log,
      parsing: this.parsing,
      commandTimeoutMs: settings.command_timeout_s * 1000,
      probeTimeoutMs: settings.probe_timeout_s * 1000,
      answerTimeoutMs: settings.answer_timeout_s * 1000,
      maxAnswerBytes: settings.max_answer_bytes,
      commandAnswered: (conn, pending, answer) => this.settling(this.commandAnswered(conn, pending, answer)),
      probeAnswered: (conn, answer) => this.probeAnswered(conn, answer),
      event: (conn, body) => this.event(conn, body),
      closed: (conn, reason) => this.closed(conn, reason),
    };
  }

  /** The bound agent port (tests bind port 0). */
  port(): number {
    return this.server ? this.boundPort : 0;
  }

  /** Its agent is connected, here or to another instance. */
  isConnected(ip: string): boolean {
    return this.connections.has(ip) || this.remote.holder(ip) !== undefined;
  }

  /** How many connected agents GET /clients shows in each state. */
  stateCounts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const conn of this.connections.values()) counts.set(conn.shownState, (counts.get(conn.shownState) ?? 0) + 1);
    return counts;
  }

  /** The clients whose agents this instance holds. */
  connectedIps(): string[] {
    return [...this.connections.keys()];
  }

  /**
   * Send one request to each client; resolves with a per-client outcome as soon as each
   * was sent (at once for agents held here, after a round trip for those another instance
   * holds), and each answer later.
   */
  async dispatch(ips: string[], request: AgentRequest): Promise<Dispatch> {
    const asked = [...new Set(ips)];
    const here: string[] = [];
    const away = new Map<string, string[]>();
    for (const ip of asked) {
      const holder = this.connections.has(ip) ? undefined : this.remote.holder(ip);
      if (!holder) here.push(ip);
      else {
        const group = away.get(holder);
        if (group) group.push(ip);
        else away.set(holder, [ip]);
      }
    }
    const local = this.dispatchHere(here, request);
    if (away.size === 0) return local;
    const outcomes = new Map<string, Outcome>(local.outcomes.map((o) => [o.addr, o.outcome]));
    const answers = local.answers;
    for (const remote of await Promise.all([...away].map(([holder, group]) => this.remote.dispatch(holder, group, request)))) {
      for (const o of remote.outcomes) outcomes.set(o.addr, o.outcome);
      for (const [ip, answer] of remote.answers) {
        answers.set(ip, answer);
        if (request.path !== 'probe') this.announce.relayed(ip, request, answer);
      }
    }
    return { outcomes: asked.map((addr) => ({ addr, outcome: outcomes.get(addr)! })), answers };
  }

  /** Send to the agents held here; `origin` when another instance asked (it stores the answers). */
  private dispatchHere(ips: string[], request: AgentRequest, origin?: Origin): Dispatch {
    const outcomes: Dispatch['outcomes'] = [];
    const answers = new Map<string, Promise<AgentAnswer>>();
    for (const ip of new Set(ips)) {
      const conn = this.connections.get(ip);
      if (!conn) {
        outcomes.push({ addr: ip, outcome: 'not_connected' });
        continue;
      }
      const sent = request.path === 'probe' ? conn.probe() : conn.busy && !request.force ? undefined : conn.command(request, origin);
      if (!sent) {
        outcomes.push({ addr: ip, outcome: 'busy' });
        continue;
      }
      outcomes.push({ addr: ip, outcome: 'sent' });
      answers.set(ip, sent);
      if (request.path !== 'probe') this.announce.command(conn, request, sent);
    }
    return { outcomes, answers };
  }

  /** What to store from a 200 answer (with a body) to requests of `path`; throwing or answering 'failure' makes last_cmd.result 'failure'. */
  onAnswer(path: string, handler: AnswerHandler): void {
    this.handlers.set(path, [...(this.handlers.get(path) ?? []), handler]);
  }

  /** The agent answers requests of `path` by closing its connection (stop): that ends them without a failure logged. */
  answeredByDisconnect(path: string): void {
    this.endedByDisconnect.add(path);
  }

  /**
   * Let `gate` decide what becomes of agents from addresses no client has (the enrol
   * plugin's discovered PCs): those it takes are its guests, sent only the inventory and
   * power commands through the handle it gets, and never listed, dispatched to or announced
   * as clients' agents. One plugin may (`by` names it); without a gate they are refused.
   */
  admitStrangers(gate: GuestGate, by: string): void {
    this.guests.admit(gate, by);
  }

  /** Extra entries for GET /clients (the wol plugin's WOL_SENT entries), listed first. */
  addListing(provider: () => Iterable<ClientListing>): void {
    this.listings.push(provider);
  }

  /** GET /clients: listing entries first, then agents, most recently connected first. */
  listing(): ClientListing[] {
    return this.listed().map((item) =>
      item instanceof AgentConnection ? item.listingEntry() : heldElsewhere(item) ? (JSON.parse(item[1]) as ClientListing) : item,
    );
  }

  /**
   * GET /clients' answer, `{"clients":[...]}`, for the addresses in `inside` (all when not
   * given). The whole answer (text and bytes) is used again while every entry's text is the
   * one it was (each entry keeps its text until what it shows changes): consoles poll this.
   */
  listingAnswer(inside?: ReadonlySet<string>): PreparedJson {
    const parts: string[] = [];
    for (const item of this.listed()) {
      if (item instanceof AgentConnection) {
        if (!inside || inside.has(item.ip)) parts.push(item.listingJson());
      } else if (heldElsewhere(item)) {
        if (!inside || inside.has(item[0])) parts.push(item[1]);
      } else if (!inside || inside.has(item.addr)) parts.push(stringifyAscii(item));
    }
    const last = inside ? undefined : this.lastListing;
    if (last && sameTexts(last.parts, parts)) return last.body;
    const body = new PreparedJson(`{"clients":[${parts.join(',')}]}`);
    if (!inside) this.lastListing = { parts, body };
    return body;
  }

  /**
   * The other plugins' entries of clients with no agent, then the agents held here, newest
   * first, then those other instances hold.
   */
  private listed(): Listed[] {
    const out: Listed[] = [];
    for (const provider of this.listings) {
      for (const entry of provider()) if (!this.isConnected(entry.addr)) out.push(entry);
    }
    const agents = [...this.connections.values()];
    for (let i = agents.length - 1; i >= 0; i--) out.push(agents[i]!);
    for (const [ip, json] of this.remote.listed((ip) => this.connections.has(ip))) out.push([ip, json]);
    return out;
  }

  /** The connection of a client held here (tests read what it buffers). */
  connection(ip: string): AgentConnection | undefined {
    return this.connections.get(ip);
  }

  /** Every agent held here as the others are told of it: address, GET /clients entry, shown state. */
  private *ownEntries(): Iterable<[string, string, string]> {
    for (const conn of this.connections.values()) yield [conn.ip, conn.listingJson(), conn.shownState];
  }

  /**
   * What a stored answer says of the agent itself (refresh: its OS state and link speed),
   * kept by its connection wherever that is.
   */
  reported(ip: string, report: AgentReport): void {
    const conn = this.connections.get(ip);
    if (!conn) {
      this.remote.report(ip, report);
      return;
    }
    if (report.speed) conn.speed = report.speed;
    if (report.state) conn.state = report.state;
  }

  /** Agent sockets open (connected agents and connections still being identified). */
  socketCount(): Promise<number> {
    const server = this.server;
    if (!server) return Promise.resolve(0);
    return new Promise((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
  }

  /** Open the agent listener through core's `listen` (`agents.ip`, `agents.port`), then start probing. */
  async start(listen: PluginContext['listen']): Promise<void> {
    const server = net.createServer({ noDelay: true, keepAlive: true, keepAliveInitialDelay: keepAliveMs }, (socket) =>
      this.accept(socket),
    );
    // Beyond the cap Node accepts and at once closes (the 'drop' event), so the backlog
    // drains, descriptors stay free for REST and the agents' retries find room later.
    this.connectionCap = agentConnectionCap(descriptorLimit(), this.settings.fd_reserve);
    server.maxConnections = this.connectionCap;
    server.on('drop', () => this.refused.hit());
    const listening = await listen(server, {
      name: 'agent interface',
      ip: this.settings.ip,
      port: this.settings.port,
      ipKey: 'agents.ip',
      portKey: 'agents.port',
      backlog: 4096,
      note: `at most ${this.connectionCap} agents`,
    });
    this.boundPort = listening.port;
    server.on('error', (error: NodeJS.ErrnoException) => {
      // Out of descriptors anyway (other parts of the process used them): libuv drops the
      // pending connection and the listener keeps going; say so once per interval.
      if (error.code === 'EMFILE' || error.code === 'ENFILE') this.acceptFailed.hit();
      else this.log.error({ err: error }, 'agent listener error');
    });
    this.server = server;
    if (this.cluster.shared) this.remote.start();
    if (this.settings.probe_interval_s > 0) {
      this.probeSweep = new ProbeSweep(
        this.settings.probe_interval_s * 1000,
        () => this.connectedIps(),
        (ips) => this.dispatch(ips, { method: 'POST', path: 'probe' }),
      );
      this.probeSweep.start();
    }
  }

  async stop(): Promise<void> {
    this.remote.stop();
    this.departures.stop();
    this.probeSweep?.stop();
    this.refused.stop();
    this.acceptFailed.stop();
    this.strangers.stop();
    this.badEvents.stop();
    const server = this.server;
    this.server = undefined;
    const closed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    for (const conn of [...this.connections.values()]) conn.close('server stopping');
    this.guests.closeAll('server stopping');
    await closed;
    await this.parsing.stop();
    // Answers being stored and lookups under way finish before the database closes under them.
    await Promise.allSettled([...this.unsettled]);
  }

  /** Work started by an agent's bytes that uses the database: stop() waits for it. */
  private settling<T>(work: Promise<T>): Promise<T> {
    this.unsettled.add(work);
    const done = () => this.unsettled.delete(work);
    work.then(done, done);
    return work;
  }

  private accept(socket: Socket): void {
    // Nothing is read until the peer is known to be a client.
    socket.pause();
    socket.setKeepAlive(true, keepAliveMs);
    socket.on('error', () => undefined);
    const ip = (socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    this.settling(this.lookups.clientByIp(ip)).then(
      (client) => {
        // The peer left, or the service stopped while the lookup ran.
        if (socket.destroyed || !this.server) {
          socket.destroy();
          return;
        }
        if (client) this.attach(socket, ip, client);
        else if (this.guests.admitting) this.offerStranger(socket, ip);
        else this.refuseStranger(socket, ip);
      },
      (error: unknown) => {
        this.log.error({ err: error, ip }, 'agent connection refused: client lookup failed');
        socket.destroy();
      },
    );
  }

  private refuseStranger(socket: Socket, ip: string): void {
    this.strangers.hit(ip, 'agent connection from an address no client has; closed');
    socket.destroy();
  }

  /** A stranger the guest gate may take; refused as any other when it does not. */
  private offerStranger(socket: Socket, ip: string): void {
    this.settling(this.guests.take(socket, ip)).then(
      (taken) => {
        if (!taken) this.refuseStranger(socket, ip);
      },
      (error: unknown) => {
        this.log.error({ err: error, ip }, 'agent connection refused: the guest gate failed');
        socket.destroy();
      },
    );
  }

  private attach(socket: Socket, ip: string, client: ClientView): void {
    const old = this.connections.get(ip);
    if (old) {
      this.connections.delete(ip);
      old.close('replaced by a new connection from the same address');
    }
    const conn = new AgentConnection(socket, ip, client, this.owner);
    this.connections.set(ip, conn);
    this.log.info({ ip, client: client.name }, 'agent connected');
    socket.resume();
    this.announce.connected(conn);
    this.remote.changed();
    this.refreshOnConnect(conn);
  }

  /**
   * The connect refresh is what makes a connection an agent: a peer that connects and
   * never answers it (a wedged agent, a port scanner with a client's address) is dropped
   * after agents.connect_timeout_s instead of holding a descriptor and a BSY entry. The
   * timer stops however the refresh settles: answered, timed out, interrupted or closed.
   */
  private refreshOnConnect(conn: AgentConnection): void {
    const timeoutMs = this.settings.connect_timeout_s * 1000;
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            this.log.warn({ ip: conn.ip }, `dropping agent connection: no answer to the connect refresh within ${timeoutMs} ms`);
            conn.close('no answer to the connect refresh');
          }, timeoutMs)
        : undefined;
    const settled = () => clearTimeout(timer);
    const answer = conn.command(refreshRequest);
    answer.then(settled, settled);
    this.announce.command(conn, refreshRequest, answer);
  }

  private closed(conn: AgentConnection, reason: string): void {
    if (this.connections.get(conn.ip) !== conn) return;
    this.connections.delete(conn.ip);
    this.announce.disconnected(conn, reason);
    this.remote.changed();
    this.departures.died();
  }

  private clientRemoved(client: ClientView): void {
    const conn = this.connections.get(client.ip);
    if (conn && conn.client.id === client.id) conn.close('the client was removed from the inventory');
  }

  private async commandAnswered(conn: AgentConnection, pending: Pending, answer: AgentAnswer): Promise<LastResult> {
    // Another instance's request is stored there, where what it needs to store it is.
    conn.lastResult = pending.origin
      ? await this.remote.passOn(pending.origin, conn.ip, pending.request.path, answer)
      : await this.store(conn.client, pending.request, answer);
    return conn.lastResult;
  }

  /** Run the answer handlers of `request` on a 200 answer: 'success' when every one stored what it reads. */
  private async store(client: ClientView, request: AgentRequest, answer: AgentAnswer): Promise<LastResult> {
    let ok = answer.status === 200 || answer.status === 202;
    if (answer.status === 200 && answer.body !== undefined) {
      for (const handler of this.handlers.get(request.path) ?? []) {
        try {
          if ((await handler(client, answer, request)) === 'failure') ok = false;
        } catch (error) {
          ok = false;
          logCommandFailure(this.log, client.ip, request.path, `answer not stored: ${(error as Error).message}`, { err: error });
        }
      }
    } else if (!ok) {
      logCommandFailure(this.log, client.ip, request.path, `the agent answered ${answer.status}`, { status: answer.status });
    }
    return ok ? 'success' : 'failure';
  }

  private probeAnswered(conn: AgentConnection, answer: AgentAnswer): void {
    const outcome = readProbe(answer.status, answer.body);
    if (!outcome) {
      this.log.warn({ ip: conn.ip, status: answer.status }, 'unusable probe answer ignored');
      return;
    }
    conn.agentBusy = outcome.busy;
    if (outcome.state) conn.state = outcome.state;
    if (outcome.speed) conn.speed = outcome.speed;
    this.announce.state(conn);
  }

  private event(conn: AgentConnection, body: unknown): void {
    if (body === undefined) return;
    const outcome = readEvent(conn.state, body);
    if (!outcome.ok) {
      this.badEvents.hit(conn.ip, `agent event ignored: ${outcome.why}`);
      return;
    }
    conn.state = outcome.state;
    this.announce.state(conn);
    this.announce.session(conn, outcome.action === 'logged in' ? 'start' : 'stop', outcome.user, outcome.os);
    this.log.info(
      { ip: conn.ip, user: outcome.user, os: outcome.os },
      `User ${outcome.action}: ip=${conn.ip}, user=${outcome.user}, os=${outcome.os}`,
    );
  }
}
