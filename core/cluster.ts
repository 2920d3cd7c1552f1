import { hostname } from 'node:os';
import { StartupError } from './errors';
import type { Logger } from './log';

/** What one instance sends another: a topic its plugins listen to, and a JSON payload. */
export interface ClusterMessage {
  topic: string;
  payload: unknown;
}

/** What a backend tells the instance it runs in. */
export interface ClusterEvents {
  received(message: ClusterMessage, from: string): void;
  joined(instance: string): void;
  left(instance: string): void;
  gained(role: string): void;
  lost(role: string): void;
  /** The link to the others was down and is back: messages sent meanwhile were lost. */
  reconnected(): void;
}

/**
 * How the instances of one site reach each other (the cluster plugin's, over PostgreSQL).
 * Without one, an instance is alone: it holds every role and sends to nobody.
 */
export interface ClusterBackend {
  readonly self: string;
  /** Instances alive now, this one included. */
  members(): readonly string[];
  /** To instance `to`, or to every other with '*'; rejects when it cannot be handed on. */
  send(to: string, message: ClusterMessage): Promise<void>;
  open(events: ClusterEvents): Promise<void>;
  /** Begin competing for these roles (after every plugin started). */
  compete(roles: string[]): void;
  close(): Promise<void>;
}

/** What a plugin is given of the seam (core starts and stops it). */
export interface PluginCluster
  extends Pick<
    Cluster,
    'self' | 'shared' | 'members' | 'on' | 'send' | 'onJoin' | 'onLeave' | 'onReconnect' | 'elected' | 'holds' | 'held'
  > {
  /**
   * Tell every other instance, without waiting: a message that cannot be handed on is
   * logged (with this plugin's name and the topic) and counted, never thrown.
   */
  broadcast(topic: string, payload: unknown): void;
  /** Connect this instance to the others; only one plugin may. */
  connect(backend: ClusterBackend): void;
}

type Role = { start: () => void | Promise<void>; stop: () => void | Promise<void>; held: boolean; turn: Promise<void> };

/**
 * The seam between instances, as plugins see it: messages by topic, who is alive, and roles
 * that exactly one instance holds at a time (the scheduler's timers, pruning). Core knows
 * no instance but its own; a backend plugin connects the rest.
 */
export class Cluster {
  private backend?: ClusterBackend;
  private backendOwner = '';
  private readonly topics = new Map<string, ((payload: unknown, from: string) => void)[]>();
  private readonly joinedFns: ((instance: string) => void)[] = [];
  private readonly leftFns: ((instance: string) => void)[] = [];
  private readonly reconnectedFns: (() => void)[] = [];
  private readonly roles = new Map<string, Role>();
  private readonly localName = `${hostname()}-${process.pid}`;
  /** Stopping: messages that still arrive are not handed to plugins that are shutting down. */
  private stopping = false;

  constructor(private readonly log: Logger) {}

  /** This instance's name among the others. */
  get self(): string {
    return this.backend?.self ?? this.localName;
  }

  /** Whether other instances may share the database (a backend is connected). */
  get shared(): boolean {
    return this.backend !== undefined;
  }

  members(): readonly string[] {
    return this.backend?.members() ?? [this.self];
  }

  /** Connect this instance to the others (one plugin may, from `register`). */
  connect(owner: string, backend: ClusterBackend): void {
    if (this.backend) throw new StartupError(`plugin '${owner}' connects instances, but plugin '${this.backendOwner}' already does`);
    this.backend = backend;
    this.backendOwner = owner;
  }

  /** Hear messages of `topic` sent by other instances. */
  on<P = unknown>(topic: string, fn: (payload: P, from: string) => void): void {
    // The sender's plugin wrote the payload as P: instances run the same code.
    this.topics.set(topic, [...(this.topics.get(topic) ?? []), fn as (payload: unknown, from: string) => void]);
  }

  /** Messages that could not be handed on, since start (GET /metrics). */
  sendFailures = 0;

  /**
   * Send to one instance, or to every other with '*'; alone, '*' reaches nobody and another
   * name is refused. A message the backend does not take rejects, and is counted.
   */
  async send(to: string, topic: string, payload: unknown): Promise<void> {
    if (this.backend) {
      try {
        await this.backend.send(to, { topic, payload });
      } catch (error) {
        this.sendFailures++;
        throw error;
      }
      return;
    }
    if (to !== '*') throw new Error(`no instance '${to}': this one is alone`);
  }

  /** `send('*', ...)` for who does not wait: a failure is logged under `plugin`'s name (and counted by send). */
  broadcast(plugin: string, topic: string, payload: unknown): void {
    if (!this.backend) return;
    this.send('*', topic, payload).catch((error: Error) =>
      this.log.warn({ plugin, topic, err: error }, `could not tell the other instances ${topic}: ${error.message}`),
    );
  }

  onJoin(fn: (instance: string) => void): void {
    this.joinedFns.push(fn);
  }

  /** Hear that an instance is gone (stopped, or its heartbeat expired): what it held is lost. */
  onLeave(fn: (instance: string) => void): void {
    this.leftFns.push(fn);
  }

  /**
   * Hear that this instance's link to the others was down and is back: what they changed
   * meanwhile was not told, so read again what is kept in memory.
   */
  onReconnect(fn: () => void): void {
    this.reconnectedFns.push(fn);
  }

  /**
   * Work only one instance may do: `start` runs when this instance wins `role`, `stop` when
   * it loses it or stops. Alone, it holds every role from start to stop.
   */
  elected(role: string, start: () => void | Promise<void>, stop: () => void | Promise<void>): void {
    if (this.roles.has(role)) throw new StartupError(`role '${role}' is claimed twice`);
    this.roles.set(role, { start, stop, held: false, turn: Promise.resolve() });
  }

  /** Whether this instance holds `role` now. */
  holds(role: string): boolean {
    return this.roles.get(role)?.held ?? false;
  }

  /** The roles this instance holds now. */
  held(): string[] {
    return [...this.roles].filter(([, role]) => role.held).map(([name]) => name);
  }

  /** The seam as one plugin sees it: a backend it connects is reported under its name. */
  forPlugin(owner: string): PluginCluster {
    const cluster = this;
    return {
      get self() {
        return cluster.self;
      },
      get shared() {
        return cluster.shared;
      },
      members: () => this.members(),
      connect: (backend) => this.connect(owner, backend),
      on: (topic, fn) => this.on(topic, fn),
      send: (to, topic, payload) => this.send(to, topic, payload),
      broadcast: (topic, payload) => this.broadcast(owner, topic, payload),
      onJoin: (fn) => this.onJoin(fn),
      onLeave: (fn) => this.onLeave(fn),
      onReconnect: (fn) => this.onReconnect(fn),
      elected: (role, start, stop) => this.elected(role, start, stop),
      holds: (role) => this.holds(role),
      held: () => this.held(),
    };
  }

  /** Reach the other instances (before the plugins start: agents may announce themselves at once). */
  async open(): Promise<void> {
    await this.backend?.open({
      received: (message, from) => this.deliver(message, from),
      joined: (instance) => this.each(this.joinedFns, instance, 'join'),
      left: (instance) => this.each(this.leftFns, instance, 'leave'),
      gained: (role) => this.turn(role, true),
      lost: (role) => this.turn(role, false),
      reconnected: () => this.each(this.reconnectedFns, this.self, 'reconnection'),
    });
  }

  /** Once every plugin started: take the roles (alone, started before this resolves) or compete for them. */
  async startRoles(): Promise<void> {
    if (this.backend) {
      this.backend.compete([...this.roles.keys()]);
      return;
    }
    for (const role of this.roles.keys()) this.turn(role, true);
    await Promise.all([...this.roles.values()].map((r) => r.turn));
  }

  /** The first step of a stop: give every held role up and hand no more messages on. */
  async stopRoles(): Promise<void> {
    this.stopping = true;
    for (const role of this.roles.keys()) this.turn(role, false);
    await Promise.all([...this.roles.values()].map((r) => r.turn));
  }

  async close(): Promise<void> {
    await this.backend?.close();
  }

  /** Role changes run one after another per role, so a stop never overtakes its start. */
  private turn(name: string, held: boolean): void {
    const role = this.roles.get(name);
    if (!role || role.held === held) return;
    role.held = held;
    role.turn = role.turn.then(async () => {
      try {
        await (held ? role.start() : role.stop());
        if (this.backend) this.log.info({ role: name }, held ? `this instance now does ${name}` : `this instance no longer does ${name}`);
      } catch (error) {
        this.log.error({ err: error, role: name }, `${name}: ${held ? 'start' : 'stop'} failed`);
      }
    });
  }

  private deliver(message: ClusterMessage, from: string): void {
    if (this.stopping) return;
    for (const fn of this.topics.get(message.topic) ?? []) {
      try {
        fn(message.payload, from);
      } catch (error) {
        this.log.error({ err: error, topic: message.topic, from }, `message ${message.topic} from ${from} failed`);
      }
    }
  }

  private each(fns: ((instance: string) => void)[] | (() => void)[], instance: string, what: string): void {
    for (const fn of fns) {
      try {
        fn(instance);
      } catch (error) {
        this.log.error({ err: error, instance }, `handling the ${what} of instance ${instance} failed`);
      }
    }
  }
}
