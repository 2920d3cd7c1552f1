import { randomBytes } from 'node:crypto';
import type { PluginCluster, Logger } from 'ogserve';
import { logCommandFailure } from './command-failures';
import {
  AgentLinkError,
  type AgentAnswer,
  type AgentRequest,
  type AgentState,
  type Dispatch,
  type LastResult,
  type Outcome,
} from './types';

/** A connected agent as another instance shows it: GET /clients' entry, serialised. */
interface RemoteEntry {
  instance: string;
  json: string;
  state: string;
}

/** What an instance holding agents publishes of them: entries that changed, and addresses gone. */
interface Presence {
  up: [ip: string, json: string, state: string][];
  down: string[];
  /** The whole list: entries of this instance not in it are gone. */
  full?: boolean;
}

interface DispatchAsk {
  id: string;
  ips: string[];
  request: AgentRequest;
}

interface AnswerNote {
  id: string;
  ip: string;
  status: number;
  body: unknown;
}

interface FailureNote {
  id: string;
  ip: string;
  reason: AgentLinkError['reason'];
  message: string;
}

/** Where a forwarded command came from: the instance that stores its answer, and its request. */
export interface Origin {
  instance: string;
  id: string;
}

/** What the link lends this class: its own agents, its dispatch and how it stores an answer. */
export interface LocalAgents {
  /** The GET /clients entry of every agent held here, by address. */
  entries(): Iterable<[ip: string, json: string, state: string]>;
  dispatchHere(ips: string[], request: AgentRequest, origin: Origin): Dispatch;
  /** Store an answer to a request this instance made, through the answer handlers; resolves with the result. */
  store(ip: string, request: AgentRequest, answer: AgentAnswer): Promise<LastResult>;
  /** What a stored answer says of the agent itself (refresh: its OS state, link speed). */
  report(ip: string, report: AgentReport): void;
  /** An agent held elsewhere is idle now (it was not listed, or busy, before). */
  idle(ip: string): void;
}

export interface AgentReport {
  state?: AgentState;
  speed?: number;
}

type Waiter<T> = { resolve(value: T): void; reject(error: Error): void; holder: string };

/**
 * A command's answer will not come: the instance holding the agent is gone (killed, say)
 * before it said how the command ended. It could not announce the end, so the instance that
 * asked does.
 */
export class HolderGone extends AgentLinkError {
  constructor(instance: string) {
    super('disconnected', `instance ${instance}, which held the agent, is gone`);
  }
}

/** How long an instance may take to say what it did with a forwarded command. */
const outcomesTimeoutMs = 10_000;
/** How often the agents held here are compared with what the others were told. */
const publishEveryMs = 200;

/**
 * The agents other instances hold, and commands to them. Each instance publishes what GET
 * /clients shows of its own agents (changes every 200 ms, the whole list to a newcomer); a
 * command to an agent held elsewhere is sent there, and its answer comes back to be
 * stored here, where the request was made, so the REST answer and what is stored are those
 * of one instance. An instance that goes loses its agents here, and every command waiting
 * on it fails as disconnected.
 */
export class RemoteAgents {
  private readonly entries = new Map<string, RemoteEntry>();
  /** What the others were last told of each agent held here. */
  private readonly told = new Map<string, string>();
  /** Dispatches sent elsewhere, waiting for their outcomes. */
  private readonly asked = new Map<string, Waiter<[string, Outcome][]>>();
  /** Answers of agents held elsewhere, by dispatch id and address. */
  private readonly answers = new Map<string, Waiter<AgentAnswer> & { request: AgentRequest; ready: Promise<void> }>();
  /** Answers this instance passed on, waiting for their origin to store them. */
  private readonly storing = new Map<string, Waiter<LastResult>>();
  private timer?: NodeJS.Timeout;
  private soon = false;

  constructor(
    private readonly cluster: PluginCluster,
    private readonly local: LocalAgents,
    private readonly log: Logger,
  ) {
    cluster.on<Presence>('agents.presence', (presence, from) => this.presence(presence, from));
    cluster.on('agents.hello', (_payload, from) => void this.publish(from));
    cluster.on<DispatchAsk>('agents.dispatch', (ask, from) => this.dispatched(ask, from));
    cluster.on<{ id: string; outcomes: [string, Outcome][] }>('agents.outcomes', ({ id, outcomes }) => {
      this.asked.get(id)?.resolve(outcomes);
      this.asked.delete(id);
    });
    cluster.on<AnswerNote>('agents.answer', (note, from) => void this.answered(note, from));
    cluster.on<FailureNote>('agents.failed', (note) => this.failed(note));
    cluster.on<{ id: string; ip: string; result: LastResult }>('agents.stored', ({ id, ip, result }) => {
      this.storing.get(key(id, ip))?.resolve(result);
      this.storing.delete(key(id, ip));
    });
    cluster.on<{ ip: string } & AgentReport>('agents.report', ({ ip, ...report }) => local.report(ip, report));
    cluster.onJoin((instance) => {
      if (instance !== cluster.self) void this.send(instance, 'agents.hello', null);
    });
    cluster.onLeave((instance) => this.gone(instance));
    // What was told meanwhile was lost both ways: everyone's whole list, and ours to everyone.
    cluster.onReconnect(() => {
      void this.send('*', 'agents.hello', null);
      void this.publish('*');
    });
  }

  start(): void {
    this.timer = setInterval(() => void this.publish(), publishEveryMs);
    this.timer.unref();
  }

  /** This instance stops: nothing it waits for from the others will be handed to it now. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.fail(() => true, new AgentLinkError('disconnected', 'this instance is stopping'));
  }

  /** An agent came or went here: tell the others now rather than at the next round. */
  changed(): void {
    if (!this.timer || this.soon) return;
    this.soon = true;
    setImmediate(() => {
      this.soon = false;
      void this.publish();
    });
  }

  /** The instance holding `ip`'s agent, if another one does. */
  holder(ip: string): string | undefined {
    return this.entries.get(ip)?.instance;
  }

  /** GET /clients entries of agents held elsewhere (`skip`: addresses held here). */
  *listed(skip: (ip: string) => boolean): Iterable<[ip: string, json: string, state: string]> {
    for (const [ip, entry] of this.entries) if (!skip(ip)) yield [ip, entry.json, entry.state];
  }

  /** Send a request to agents held by `holder`; outcomes come back at once, answers later. */
  async dispatch(holder: string, ips: string[], request: AgentRequest): Promise<Dispatch> {
    const id = randomBytes(9).toString('base64url');
    // Waiting before the outcomes come: an agent may answer right after them. The answers
    // are stored only once the caller saw the outcomes (as for an agent held here, whose
    // answer comes in a later turn), so what it keeps for them (a command's text) is there.
    let open!: () => void;
    const ready = new Promise<void>((resolve) => (open = resolve));
    const answers: Dispatch['answers'] = new Map();
    for (const ip of ips) {
      const answer = new Promise<AgentAnswer>((resolve, reject) =>
        this.answers.set(key(id, ip), { holder, request, resolve, reject, ready }),
      );
      answer.catch(() => undefined);
      answers.set(ip, answer);
    }
    const outcomes = await new Promise<[string, Outcome][]>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.asked.delete(id);
        reject(new Error(`instance ${holder} did not take the command within ${outcomesTimeoutMs} ms`));
      }, outcomesTimeoutMs);
      this.asked.set(id, {
        holder,
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      void this.send(holder, 'agents.dispatch', { id, ips, request } satisfies DispatchAsk).then((sent) => {
        if (sent) return;
        this.asked.get(id)?.reject(new Error('the database did not take the message'));
        this.asked.delete(id);
      });
    }).catch((error: Error) => {
      this.log.warn({ holder, err: error }, `command ${request.path} not forwarded: ${error.message}`);
      return ips.map((ip): [string, Outcome] => [ip, 'not_connected']);
    });
    for (const [ip, outcome] of outcomes) {
      if (outcome === 'sent') continue;
      this.answers.delete(key(id, ip));
      answers.delete(ip);
      // Busy there, though listed idle here: its being idle again is news (see dispatched()).
      const entry = this.entries.get(ip);
      if (outcome === 'busy' && entry?.instance === holder) entry.state = 'BSY';
    }
    setImmediate(open);
    return { outcomes: outcomes.map(([addr, outcome]) => ({ addr, outcome })), answers };
  }

  /**
   * A forwarded command's answer arrived here: hand it to its origin, which stores it, and
   * resolve with the result it stored (failure, logged here, if it cannot be handed over).
   */
  passOn(origin: Origin, ip: string, command: string, answer: AgentAnswer): Promise<LastResult> {
    const lost = (why: string): LastResult => {
      logCommandFailure(this.log, ip, command, `the answer is not stored: ${why}`);
      return 'failure';
    };
    // The instance that asked is gone: nobody can store the answer.
    if (!this.cluster.members().includes(origin.instance))
      return Promise.resolve(lost(`instance ${origin.instance}, which asked for it, is gone`));
    return new Promise<LastResult>((resolve) => {
      this.storing.set(key(origin.id, ip), {
        holder: origin.instance,
        resolve,
        reject: (error) =>
          resolve(lost(error instanceof HolderGone ? `instance ${origin.instance}, which asked for it, is gone` : error.message)),
      });
      const note: AnswerNote = { id: origin.id, ip, status: answer.status, body: answer.body };
      void this.send(origin.instance, 'agents.answer', note).then((sent) => {
        if (sent) return;
        this.storing.delete(key(origin.id, ip));
        resolve(lost(`it could not be sent to instance ${origin.instance}, which asked for it`));
      });
    });
  }

  /** Tell the holder of `ip` what a stored answer says of its agent. */
  report(ip: string, report: AgentReport): void {
    const holder = this.holder(ip);
    if (holder) void this.send(holder, 'agents.report', { ip, ...report });
  }

  /** Tell the others what changed among the agents held here (all of it to `to`, an instance or '*'). */
  private async publish(to?: string): Promise<void> {
    const up: Presence['up'] = [];
    const down: string[] = [];
    const here = new Set<string>();
    for (const [ip, json, state] of this.local.entries()) {
      here.add(ip);
      if (to || this.told.get(ip) !== json) up.push([ip, json, state]);
      if (!to) this.told.set(ip, json);
    }
    if (!to) {
      for (const ip of this.told.keys()) {
        if (here.has(ip)) continue;
        this.told.delete(ip);
        down.push(ip);
      }
    }
    if (!to && up.length === 0 && down.length === 0) return;
    // One message however long (a long one goes through a row): a whole list is whole.
    await this.send(to ?? '*', 'agents.presence', to ? { up, down, full: true } : { up, down });
  }

  private presence(presence: Presence, from: string): void {
    const seen = presence.full ? new Set(presence.up.map(([ip]) => ip)) : undefined;
    for (const [ip, json, state] of presence.up) {
      const before = this.entries.get(ip);
      this.entries.set(ip, { instance: from, json, state });
      if (state !== 'BSY' && (!before || before.state === 'BSY')) this.local.idle(ip);
    }
    for (const ip of presence.down) if (this.entries.get(ip)?.instance === from) this.entries.delete(ip);
    if (seen) for (const [ip, entry] of this.entries) if (entry.instance === from && !seen.has(ip)) this.entries.delete(ip);
  }

  private dispatched(ask: DispatchAsk, from: string): void {
    const dispatch = this.local.dispatchHere(ask.ips, ask.request, { instance: from, id: ask.id });
    void this.send(from, 'agents.outcomes', { id: ask.id, outcomes: dispatch.outcomes.map((o) => [o.addr, o.outcome]) });
    // A busy agent's entry goes out again at the next round even if unchanged: a command
    // shorter than a round leaves it as it was told, so the asker, which now takes it for
    // busy, would never hear it is idle again and would not retry (its queued work waited
    // for the next sweep).
    for (const o of dispatch.outcomes) if (o.outcome === 'busy') this.told.delete(o.addr);
    for (const [ip, answer] of dispatch.answers) {
      answer.then(
        (a) => {
          // A probe's answer is not stored: it goes back as it is. A command's went back to be stored.
          if (ask.request.path === 'probe') void this.send(from, 'agents.answer', { id: ask.id, ip, status: a.status, body: a.body });
        },
        (error: unknown) => {
          const reason = error instanceof AgentLinkError ? error.reason : 'bad_answer';
          void this.send(from, 'agents.failed', { id: ask.id, ip, reason, message: (error as Error).message } satisfies FailureNote);
        },
      );
    }
  }

  private async answered(note: AnswerNote, from: string): Promise<void> {
    const waiter = this.answers.get(key(note.id, note.ip));
    if (!waiter) {
      // Nobody here waits for it (this instance failed it already): the holder must not wait either.
      void this.send(from, 'agents.stored', { id: note.id, ip: note.ip, result: 'failure' });
      return;
    }
    this.answers.delete(key(note.id, note.ip));
    await waiter.ready;
    const answer: AgentAnswer = { ip: note.ip, status: note.status, body: note.body };
    if (waiter.request.path === 'probe') {
      waiter.resolve(answer);
      return;
    }
    let result: LastResult = 'failure';
    try {
      result = await this.local.store(note.ip, waiter.request, answer);
    } finally {
      void this.send(from, 'agents.stored', { id: note.id, ip: note.ip, result });
      waiter.resolve({ ...answer, result });
    }
  }

  private failed(note: FailureNote): void {
    const waiter = this.answers.get(key(note.id, note.ip));
    this.answers.delete(key(note.id, note.ip));
    waiter?.reject(new AgentLinkError(note.reason, note.message));
  }

  private gone(instance: string): void {
    for (const [ip, entry] of this.entries) if (entry.instance === instance) this.entries.delete(ip);
    this.fail((holder) => holder === instance, new HolderGone(instance));
  }

  /** Everything waiting on the instances `which` picks fails: nothing waits forever. */
  private fail(which: (holder: string) => boolean, error: AgentLinkError): void {
    for (const waiting of [this.asked, this.answers, this.storing] as Map<string, Waiter<unknown>>[]) {
      for (const [k, waiter] of waiting) {
        if (!which(waiter.holder)) continue;
        waiting.delete(k);
        waiter.reject(error);
      }
    }
  }

  /** Resolves false (and logs) when the message could not be handed on. */
  private send(to: string, topic: string, payload: unknown): Promise<boolean> {
    return this.cluster.send(to, topic, payload).then(
      () => true,
      (error: Error) => {
        this.log.warn({ to, topic, err: error }, `could not send ${topic} to ${to === '*' ? 'the other instances' : `instance ${to}`}`);
        return false;
      },
    );
  }
}

function key(id: string, ip: string): string {
  return `${id} ${ip}`;
}
