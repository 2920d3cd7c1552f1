import type { Socket } from 'node:net';
import { stringifyAscii, type Logger } from 'ogserve';
import type { ClientView } from '../inventory';
import { UnusableBody } from './answer-body';
import { AnswerParsing } from './answer-parsing';
import { AnswerParser, FramingError, encodeRequest, type Frame } from './framing';
import type { Origin } from './remote';
import { AgentLinkError, type AgentAnswer, type AgentRequest, type AgentState, type ClientListing, type LastResult } from './types';

/** One request the agent has been sent (or will be sent once the probe before it is answered). */
export interface Pending {
  request: AgentRequest;
  /** Another instance sent it: the answer goes back there to be stored. */
  origin?: Origin;
  kind: 'command' | 'probe';
  promise: Promise<AgentAnswer>;
  resolve(answer: AgentAnswer): void;
  reject(error: AgentLinkError): void;
  timer?: NodeJS.Timeout;
  /** Its answer arrived (it may still be being stored). */
  answered: boolean;
}

/** What a connection needs from the link that owns it (`C`: what the link knows the peer as, its client). */
export interface ConnectionOwner<C = ClientView> {
  readonly log: Logger;
  readonly commandTimeoutMs: number;
  readonly probeTimeoutMs: number;
  /** From an answer's first byte to its last; 0 = no limit. */
  readonly answerTimeoutMs: number;
  readonly maxAnswerBytes: number;
  readonly parsing: AnswerParsing;
  /** Store a command's answer; resolves when stored. */
  commandAnswered(conn: AgentConnection<C>, pending: Pending, answer: AgentAnswer): Promise<LastResult>;
  probeAnswered(conn: AgentConnection<C>, answer: AgentAnswer): void;
  event(conn: AgentConnection<C>, body: unknown): void;
  closed(conn: AgentConnection<C>, reason: string): void;
}

/**
 * The live link to one agent. The reference agent reads one request at a time and throws
 * away bytes that follow it in the same read, so at most one request is on the wire: a
 * command that arrives while a probe is outstanding waits for the probe's (immediate)
 * answer and is then written. Answers are matched to that one request.
 */
export class AgentConnection<C = ClientView> {
  state: AgentState = 'OPG';
  /** Link speed in Mbit/s; undefined until the agent reports a non-zero one (0 means it could not read it). */
  speed?: number;
  lastResult: LastResult = 'unknown';
  private listed?: { state: AgentState; speed?: number; result: LastResult; json: string };
  /** The agent said it is busy (202 or BSY probe answer); cleared by its next idle probe answer. */
  agentBusy = false;
  private inFlight?: Pending;
  private queued?: Pending;
  private readonly parser: AnswerParser;
  /** Answers read but not yet handled: they wait while the one before them is parsed on the parse thread. */
  private readonly backlog: Frame[] = [];
  /** An answer is being parsed on the parse thread; reading stops meanwhile. */
  private parsingOffThread = false;
  private closing = false;
  /** Runs while an answer is half-read: a peer trickling bytes must not hold the connection forever. */
  private answerTimer?: NodeJS.Timeout;

  constructor(
    readonly socket: Socket,
    readonly ip: string,
    public client: C,
    private readonly owner: ConnectionOwner<C>,
  ) {
    this.parser = new AnswerParser(owner.maxAnswerBytes);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('end', () =>
      this.close(this.parser.idle ? 'the agent closed the connection' : 'the agent closed the connection in the middle of an answer'),
    );
    socket.on('close', () => this.close('connection closed'));
    socket.on('error', (error) => this.close(`socket error: ${error.message}`));
  }

  /** A command is outstanding or queued, or the agent said it is busy. */
  get busy(): boolean {
    return this.inFlight?.kind === 'command' || this.queued !== undefined || this.agentBusy;
  }

  /** What GET /clients shows: BSY while busy, never because of a probe. */
  get shownState(): AgentState {
    return this.busy ? 'BSY' : this.state;
  }

  /** This client's GET /clients entry. */
  listingEntry(): ClientListing {
    const last_cmd = { result: this.lastResult };
    // The spec: `speed` only when the client reported it.
    return this.speed === undefined
      ? { addr: this.ip, state: this.shownState, last_cmd }
      : { addr: this.ip, state: this.shownState, speed: this.speed, last_cmd };
  }

  /** The entry as JSON, written again only when what it shows changed (consoles poll it). */
  listingJson(): string {
    const { shownState: state, speed, lastResult: result, listed } = this;
    if (listed && listed.state === state && listed.speed === speed && listed.result === result) return listed.json;
    const json = stringifyAscii(this.listingEntry());
    this.listed = { state, speed, result, json };
    return json;
  }

  /** Bytes held for this connection's unfinished answers (parser and socket): back to 0 after each answer, however large. */
  get bufferedBytes(): number {
    return this.parser.bufferedBytes + this.socket.readableLength;
  }

  get isOpen(): boolean {
    return !this.closing;
  }

  /** Send a command. `force` interrupts an outstanding one (poweroff, reboot, stop). */
  command(request: AgentRequest, origin?: Origin): Promise<AgentAnswer> {
    const pending = this.pending(request, 'command');
    pending.origin = origin;
    if (this.queued) this.fail(this.queued, 'interrupted', `replaced by ${request.path}`);
    this.queued = undefined;
    if (this.inFlight?.kind === 'command' && !this.inFlight.answered)
      this.fail(this.inFlight, 'interrupted', `interrupted by ${request.path}`);
    if (this.inFlight) this.queued = pending;
    else this.write(pending);
    return pending.promise;
  }

  /** Probe unless anything is on the wire; undefined when skipped. */
  probe(): Promise<AgentAnswer> | undefined {
    if (this.inFlight || this.queued || this.closing) return undefined;
    const pending = this.pending({ method: 'POST', path: 'probe' }, 'probe');
    this.write(pending);
    return pending.promise;
  }

  close(reason: string): void {
    if (this.closing) return;
    this.closing = true;
    this.owner.log.info({ ip: this.ip, reason }, 'agent disconnected');
    for (const pending of [this.inFlight, this.queued]) if (pending) this.fail(pending, 'disconnected', `agent disconnected: ${reason}`);
    this.inFlight = this.queued = undefined;
    clearTimeout(this.answerTimer);
    this.socket.destroy();
    this.owner.closed(this, reason);
  }

  private pending(request: AgentRequest, kind: Pending['kind']): Pending {
    let resolve!: Pending['resolve'];
    let reject!: Pending['reject'];
    const promise = new Promise<AgentAnswer>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // Callers may ignore an answer; a rejection nobody awaits must not crash the process.
    promise.catch(() => undefined);
    return { request, kind, promise, resolve, reject, answered: false };
  }

  private write(pending: Pending): void {
    if (this.closing) {
      pending.reject(new AgentLinkError('disconnected', 'agent disconnected'));
      return;
    }
    this.inFlight = pending;
    const timeout = pending.kind === 'probe' ? this.owner.probeTimeoutMs : this.owner.commandTimeoutMs;
    if (timeout > 0) pending.timer = setTimeout(() => this.timedOut(pending), timeout);
    this.socket.write(encodeRequest(pending.request.method, pending.request.path, pending.request.body));
  }

  private timedOut(pending: Pending): void {
    if (pending.kind === 'probe') {
      // A live agent answers a probe at once, even while busy: silence means the peer is
      // gone or wedged (a half-open socket), so the connection is reaped.
      this.close(`no answer to a probe within ${this.owner.probeTimeoutMs} ms`);
      return;
    }
    this.fail(pending, 'timeout', `no answer to ${pending.request.path} within ${this.owner.commandTimeoutMs} ms`);
    this.next();
  }

  /** Settle a command as failed and free its slot. */
  private fail(pending: Pending, reason: AgentLinkError['reason'], message: string): void {
    clearTimeout(pending.timer);
    if (pending.kind === 'command') this.lastResult = 'failure';
    if (this.inFlight === pending) this.inFlight = undefined;
    if (this.queued === pending) this.queued = undefined;
    pending.reject(new AgentLinkError(reason, message));
  }

  private next(): void {
    if (this.inFlight || !this.queued) return;
    const queued = this.queued;
    this.queued = undefined;
    this.write(queued);
  }

  private onData(chunk: Buffer): void {
    let frames: Frame[];
    try {
      frames = this.parser.push(chunk);
    } catch (error) {
      if (!(error instanceof FramingError)) throw error;
      this.owner.log.warn({ ip: this.ip }, `dropping agent connection: ${error.message}`);
      this.close(error.message);
      return;
    }
    this.watchPartialAnswer(frames.length > 0);
    this.backlog.push(...frames);
    this.handleBacklog();
  }

  /**
   * Handle the answers read, in order. One parsed on the parse thread holds the others back,
   * and reading stops until it is handled: a peer cannot pile up answers meanwhile.
   */
  private handleBacklog(): void {
    while (!this.parsingOffThread && !this.closing && this.backlog.length > 0) {
      const frame = this.backlog.shift()!;
      if (frame.body.length === 0) {
        this.onAnswer(frame.status, undefined);
        continue;
      }
      if (!AnswerParsing.offThread(frame.body)) {
        let body: unknown;
        try {
          body = this.owner.parsing.parseNow(frame.body);
        } catch (error) {
          if (!(error instanceof UnusableBody)) throw error;
          this.unusable(frame.status, error);
          return;
        }
        this.onAnswer(frame.status, body);
        continue;
      }
      this.parsingOffThread = true;
      this.socket.pause();
      this.owner.parsing.parseOffThread(frame.body).then(
        (body) => {
          this.parsingOffThread = false;
          if (this.closing) return;
          this.socket.resume();
          this.onAnswer(frame.status, body);
          this.handleBacklog();
        },
        (error: Error) => {
          this.parsingOffThread = false;
          this.unusable(frame.status, error);
        },
      );
      return;
    }
  }

  /** As the reference: a body that is not JSON (or not one an agent sends) drops the connection. */
  private unusable(status: number, error: Error): void {
    if (this.closing) return;
    this.owner.log.warn({ ip: this.ip, status }, `dropping agent connection: ${error.message}`);
    this.close(error.message);
  }

  /**
   * An agent writes its answer at once when its work is done, so a started answer arrives
   * within seconds. The deadline runs from the first byte of each answer (restarted after
   * every complete one); bytes trickled one a minute do not move it.
   */
  private watchPartialAnswer(completedOne: boolean): void {
    if (this.parser.idle || completedOne) {
      clearTimeout(this.answerTimer);
      this.answerTimer = undefined;
    }
    if (this.parser.idle || this.answerTimer || this.owner.answerTimeoutMs <= 0) return;
    this.answerTimer = setTimeout(() => {
      const why = `answer not complete within ${this.owner.answerTimeoutMs} ms of its first byte`;
      this.owner.log.warn({ ip: this.ip }, `dropping agent connection: ${why}`);
      this.close(why);
    }, this.owner.answerTimeoutMs);
  }

  private onAnswer(status: number, body: unknown): void {
    if (status === 103) {
      this.owner.event(this, body);
      return;
    }
    const pending = this.inFlight;
    if (!pending || pending.answered) {
      this.owner.log.warn({ ip: this.ip, status }, 'ignoring an answer to no outstanding request');
      return;
    }
    pending.answered = true;
    clearTimeout(pending.timer);
    const answer: AgentAnswer = { ip: this.ip, status, body };
    if (pending.kind === 'probe') {
      this.inFlight = undefined;
      this.owner.probeAnswered(this, answer);
      pending.resolve(answer);
      this.next();
      return;
    }
    // The slot stays taken until the answer is stored, so the client shows BSY until then
    // and no second answer can be stored concurrently for it.
    this.owner.commandAnswered(this, pending, answer).then(
      (result) => {
        if (this.inFlight === pending) this.inFlight = undefined;
        pending.resolve({ ...answer, result });
        this.next();
      },
      (error: unknown) => {
        this.owner.log.error({ err: error, ip: this.ip, command: pending.request.path }, 'storing an agent answer failed');
        if (this.inFlight === pending) this.inFlight = undefined;
        pending.resolve({ ...answer, result: 'failure' });
        this.next();
      },
    );
  }
}
