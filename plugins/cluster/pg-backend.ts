import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import type { ClusterBackend, ClusterEvents, ClusterMessage, Logger } from 'ogserve';
import { StatementQueue } from './statement-queue';

export interface PgClusterSettings {
  /** This instance's name (letters, digits, '.', '_', '-'). */
  name: string;
  heartbeatMs: number;
  /** An instance whose heartbeat is older than this is gone. */
  expiryMs: number;
  connection: pg.ClientConfig;
}

const channel = 'ogserve_cluster';
/** NOTIFY refuses payloads of 8,000 bytes or more; larger messages go through a row. */
const inlineLimit = 7900;
/** Rows of large messages are kept this long for the receivers to read them. */
const messageKeepMs = 5 * 60_000;

/** What one notification carries: sender, recipient ('*' = every other), the message or its row. */
interface Envelope {
  f: string;
  t: string;
  m?: ClusterMessage;
  r?: string;
}

/**
 * Instances sharing one PostgreSQL database, through PostgreSQL alone: each holds one
 * session named `ogserve:<name>` that LISTENs for messages, beats a heartbeat row and holds
 * the advisory locks of the roles it won. A killed instance's session ends, so its locks
 * free and it drops out of the members at once; a hung one drops out when its heartbeat
 * expires. Messages from one sender are delivered in the order sent.
 */
export class PgClusterBackend implements ClusterBackend {
  private client?: pg.Client;
  private connecting?: Promise<pg.Client>;
  private events?: ClusterEvents;
  private alive: string[];
  private wanted: string[] = [];
  private readonly held = new Set<string>();
  private timer?: NodeJS.Timeout;
  private closed = false;
  /** Per sender, the delivery of its latest message: the next one waits for it. */
  private readonly inbox = new Map<string, Promise<void>>();
  private ticking?: Promise<void>;
  private readonly statements = new StatementQueue();

  constructor(
    private readonly settings: PgClusterSettings,
    private readonly log: Logger,
  ) {
    this.alive = [settings.name];
  }

  get self(): string {
    return this.settings.name;
  }

  members(): readonly string[] {
    return this.alive;
  }

  async open(events: ClusterEvents): Promise<void> {
    this.events = events;
    await this.connect();
    await this.tick();
    this.timer = setInterval(() => void this.beat(), this.settings.heartbeatMs);
  }

  compete(roles: string[]): void {
    this.wanted = roles;
    void this.beat();
  }

  async send(to: string, message: ClusterMessage): Promise<void> {
    const client = await this.connection();
    const inline = JSON.stringify({ f: this.self, t: to, m: message } satisfies Envelope);
    if (Buffer.byteLength(inline) <= inlineLimit) {
      await this.query(client, 'select pg_notify($1, $2)', [channel, inline]);
      return;
    }
    const id = randomBytes(12).toString('base64url');
    // Row and notification in one statement: the notification leaves only with its row, and in
    // this sender's order (two statements let a short message sent meanwhile overtake it).
    await this.query(
      client,
      `with stored as (insert into cluster_message (id, sender, body, created_at) values ($1, $2, $3, now()) returning id)
       select pg_notify($4, $5) from stored`,
      [id, this.self, JSON.stringify(message), channel, JSON.stringify({ f: this.self, t: to, r: id } satisfies Envelope)],
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.ticking;
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    try {
      // The others learn at once rather than when the heartbeat expires.
      await this.query(client, 'delete from cluster_instance where name = $1', [this.self]);
      await this.query(client, 'select pg_notify($1, $2)', [
        channel,
        JSON.stringify({ f: this.self, t: '*', m: { topic: 'cluster.left', payload: null } }),
      ]);
    } catch (error) {
      this.log.warn({ err: error }, 'could not tell the other instances this one stops');
    }
    await client.end().catch(() => undefined);
  }

  /** One statement at a time on the session; `urgent` ones (the heartbeat's) before the waiting messages. */
  private query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    client: pg.Client,
    sql: string,
    params: unknown[] = [],
    urgent = false,
  ): Promise<pg.QueryResult<R>> {
    return this.statements.run<R>(client, sql, params, urgent);
  }

  private async connection(): Promise<pg.Client> {
    if (this.client) return this.client;
    if (this.closed) throw new Error('this instance has left the cluster');
    return this.connect();
  }

  private connect(): Promise<pg.Client> {
    this.connecting ??= this.openSession().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  /** Whether a session was open before: a new one after it means messages may have been lost. */
  private hadSession = false;

  private async openSession(): Promise<pg.Client> {
    const client = new pg.Client({ ...this.settings.connection, application_name: `ogserve:${this.self}` });
    client.on('error', (error) => this.dropped(client, error));
    client.on('end', () => this.dropped(client));
    client.on('notification', (note) => this.notified(note.payload ?? ''));
    try {
      await client.connect();
      await this.query(client, `listen ${channel}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    this.client = client;
    if (this.hadSession) this.events?.reconnected();
    this.hadSession = true;
    return client;
  }

  /** The session is gone: so are the roles its locks held (another instance may take them now). */
  private dropped(client: pg.Client, error?: Error): void {
    if (this.client !== client) return;
    this.client = undefined;
    if (this.closed) return;
    this.log.warn({ err: error }, 'lost the database session shared with the other instances; reconnecting');
    for (const role of this.held) this.events?.lost(role);
    this.held.clear();
  }

  private beat(): Promise<void> {
    this.ticking ??= this.tick()
      .catch((error: unknown) => this.log.warn({ err: error }, `cluster heartbeat failed: ${(error as Error).message}`))
      .finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  /** Heartbeat, members, roles, and old message rows, once per heartbeat. */
  private async tick(): Promise<void> {
    if (this.closed) return;
    const client = await this.connection();
    await this.query(
      client,
      `insert into cluster_instance (name, started_at, heartbeat_at) values ($1, now(), now())
       on conflict (name) do update set heartbeat_at = now()`,
      [this.self],
      true,
    );
    const { rows } = await this.query<{ name: string }>(
      client,
      `select i.name from cluster_instance i
       where i.heartbeat_at > now() - $1 * interval '1 millisecond'
         and exists (select 1 from pg_stat_activity a where a.datname = current_database() and a.application_name = 'ogserve:' || i.name)
       order by i.name`,
      [this.settings.expiryMs],
      true,
    );
    this.membersAre(rows.map((r) => r.name));
    await this.query(
      client,
      "delete from cluster_message where sender = $1 and created_at < now() - $2 * interval '1 millisecond'",
      [this.self, messageKeepMs],
      true,
    );
    for (const role of this.wanted) {
      if (this.held.has(role) || this.closed) continue;
      const won = await this.query<{ won: boolean }>(client, 'select pg_try_advisory_lock($1) as won', [lockKey(role)], true);
      if (won.rows[0]?.won && this.client === client) {
        this.held.add(role);
        this.events?.gained(role);
      }
    }
  }

  private membersAre(names: string[]): void {
    if (!names.includes(this.self)) names = [...names, this.self].sort();
    const before = new Set(this.alive);
    const now = new Set(names);
    this.alive = names;
    for (const name of names) if (!before.has(name)) this.events?.joined(name);
    for (const name of before) if (!now.has(name)) this.gone(name);
  }

  private gone(name: string): void {
    if (name === this.self) return;
    this.alive = this.alive.filter((n) => n !== name);
    this.inbox.delete(name);
    this.events?.left(name);
  }

  private notified(text: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(text) as Envelope;
    } catch {
      return;
    }
    const { f: from, t: to } = envelope;
    if (from === this.self || (to !== '*' && to !== this.self)) return;
    if (envelope.m?.topic === 'cluster.left') {
      if (this.alive.includes(from)) this.gone(from);
      return;
    }
    if (!this.alive.includes(from)) this.membersAre([...this.alive, from].sort());
    const previous = this.inbox.get(from) ?? Promise.resolve();
    const next = previous
      .then(async () => {
        const message = envelope.m ?? (await this.stored(envelope.r ?? ''));
        if (message) this.events?.received(message, from);
      })
      .catch((error: unknown) => this.log.error({ err: error, from }, `message from instance ${from} not delivered`));
    this.inbox.set(from, next);
  }

  private async stored(id: string): Promise<ClusterMessage | undefined> {
    const client = await this.connection();
    const { rows } = await this.query<{ body: string }>(client, 'select body from cluster_message where id = $1', [id]);
    return rows[0] ? (JSON.parse(rows[0].body) as ClusterMessage) : undefined;
  }
}

/** The advisory lock of a role: 64 bits of its name's hash (locks are per database). */
function lockKey(role: string): string {
  return createHash('sha256').update(`ogserve:${role}`).digest().readBigInt64BE(0).toString();
}
