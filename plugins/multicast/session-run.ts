import type { ClientState } from './entities/session-client';
import type { SessionState } from './entities/session';
import type { SenderExit } from './sender';
import type { StampedFact } from './sender-log';

/** A PC of a running session, as its sender's lines tell it. */
export interface LiveClient {
  ip: string;
  state: ClientState;
  reason: string;
  slow: number;
  bytes: number;
  joinedAt: number | null;
  endedAt: number | null;
  jobId: number | null;
}

/** What one fact (or the sender's exit) changed: PCs whose state changed, the session's state, its progress. */
export interface RunChanges {
  clients: LiveClient[];
  session?: { state: SessionState; reason: string };
  progressed?: boolean;
}

/** States after which a PC's part in the session is over. */
export const endedStates: readonly ClientState[] = ['done', 'dropped', 'missing', 'cancelled', 'failed', 'skipped'];

/** How the rate is measured while the stream runs: over the last few seconds of progress lines. */
const rateWindowMs = 5000;

/**
 * One session's state, made only of what its udp-sender said (its facts, then its exit):
 * each PC's part, the stream's bytes, retransmits and rate. udp-sender numbers its receivers
 * (`#0`, `#1`) as they connect; a drop names the number, and the disconnection that follows
 * names the address too.
 */
export class SessionRun {
  state: SessionState = 'waiting';
  reason = '';
  bytes = 0;
  retransmits = 0;
  rate = 0;
  startedAt: number | null = null;
  finishedAt: number | null = null;
  device = '';
  readonly clients = new Map<string, LiveClient>();
  private readonly participants = new Map<number, string>();
  private readonly dropping = new Map<number, string>();
  private complete = false;
  /** udp-sender's time of day when the transfer started (seconds since midnight). */
  private startStamp: number | undefined;
  private samples: { at: number; bytes: number }[] = [];

  constructor(readonly size: number) {}

  /** A PC of the session: sent the restore (`expected`), or not (`skipped`, with why). */
  add(ip: string, state: 'expected' | 'skipped', reason: string, jobId: number | null, now: number): LiveClient {
    const client: LiveClient = { ip, state, reason, slow: 0, bytes: 0, joinedAt: null, endedAt: state === 'skipped' ? now : null, jobId };
    this.clients.set(ip, client);
    return client;
  }

  get live(): boolean {
    return this.state === 'waiting' || this.state === 'sending';
  }

  fact(fact: StampedFact, now: number): RunChanges {
    switch (fact.kind) {
      case 'interface':
        this.device = fact.device;
        return { clients: [] };
      case 'joined': {
        this.participants.set(fact.participant, fact.ip);
        // A receiver nobody asked for (a PC restoring by hand) gets the stream all the same.
        const client = this.clients.get(fact.ip) ?? this.add(fact.ip, 'expected', 'not sent the restore by ogserve', null, now);
        if (client.state !== 'expected') return { clients: [] };
        client.state = 'joined';
        client.joinedAt = now;
        return { clients: [client] };
      }
      case 'started':
        this.state = 'sending';
        this.startedAt = now;
        this.startStamp = fact.stamp;
        return { clients: [], session: { state: 'sending', reason: '' } };
      case 'progress':
        this.progress(fact.bytes, fact.retransmits, now);
        return { clients: [], progressed: true };
      case 'slow':
        for (const n of fact.participants) {
          const client = this.clients.get(this.participants.get(n) ?? '');
          if (client) client.slow++;
        }
        return { clients: [] };
      case 'dropping':
        this.dropping.set(fact.participant, fact.reason);
        return { clients: [] };
      case 'disconnected':
        return { clients: this.disconnected(fact.participant, fact.ip, now) };
      case 'complete': {
        this.complete = true;
        // The whole stream's rate, by udp-sender's own clock when it wrote one (lines read in one chunk share ours).
        const seconds =
          this.startStamp !== undefined && fact.stamp !== undefined
            ? (fact.stamp - this.startStamp + 86400) % 86400
            : (now - (this.startedAt ?? now)) / 1000;
        if (seconds > 0) this.rate = this.bytes / seconds;
        return { clients: [] };
      }
      default:
        return { clients: [] };
    }
  }

  private progress(bytes: number, retransmits: number, now: number): void {
    this.bytes = bytes;
    this.retransmits = retransmits;
    this.samples.push({ at: now, bytes });
    while (this.samples.length > 2 && this.samples[0]!.at < now - rateWindowMs) this.samples.shift();
    const first = this.samples[0]!;
    if (now > first.at) this.rate = ((bytes - first.bytes) * 1000) / (now - first.at);
    for (const client of this.clients.values()) if (client.state === 'joined') client.bytes = bytes;
  }

  private disconnected(participant: number, ip: string, now: number): LiveClient[] {
    this.participants.delete(participant);
    const client = this.clients.get(ip);
    const dropped = this.dropping.get(participant);
    this.dropping.delete(participant);
    if (client?.state !== 'joined') return [];
    if (dropped !== undefined) this.end(client, 'dropped', dropped, now);
    else if (this.complete) this.end(client, 'done', '', now);
    // Gone without udp-sender dropping it: the receiver left (it ended, or its PC went off).
    else this.end(client, 'dropped', 'left', now);
    return [client];
  }

  private end(client: LiveClient, state: ClientState, reason: string, now: number): void {
    client.state = state;
    client.reason = reason;
    client.endedAt = now;
    client.bytes = state === 'done' ? this.bytes || this.size : client.bytes;
  }

  /**
   * The sender exited: the session ends, and so does every PC still in it. `cancelled` says
   * who stopped it on purpose (a cancel, ogserve stopping), when someone did.
   */
  exit(
    exit: SenderExit,
    now: number,
    cancelled: { state: 'cancelled' | 'failed'; reason: string } | undefined,
    maxWaitS: number,
  ): RunChanges {
    let session: { state: SessionState; reason: string };
    if (cancelled) session = cancelled;
    else if (this.complete) session = { state: 'done', reason: '' };
    else if (this.startedAt === null && exit.code === 0 && exit.signal === null)
      session = { state: 'failed', reason: `no PC joined within ${maxWaitS} s (multicast.max_wait_s)` };
    else session = { state: 'failed', reason: exitWords(exit) };
    this.state = session.state;
    this.reason = session.reason;
    this.finishedAt = now;
    const changed: LiveClient[] = [];
    for (const client of this.clients.values()) {
      if (endedStates.includes(client.state)) continue;
      if (session.state === 'cancelled') this.end(client, 'cancelled', session.reason, now);
      else if (session.state === 'done') this.end(client, client.state === 'joined' ? 'done' : 'missing', '', now);
      else if (client.state === 'expected') this.end(client, 'missing', session.reason, now);
      else this.end(client, 'failed', session.reason, now);
      changed.push(client);
    }
    return { clients: changed, session };
  }

  /** Ends a session whose sender never ran (nobody could be sent the restore, or it could not be started). */
  never(reason: string, now: number): RunChanges {
    return this.exit({ code: null, signal: null, lastWords: '' }, now, { state: 'failed', reason }, 0);
  }
}

/** Why a sender that stopped on its own failed, in words. */
export function exitWords(exit: SenderExit): string {
  const how = exit.signal ? `udp-sender was ended by ${exit.signal}` : `udp-sender exited with code ${exit.code}`;
  return exit.lastWords ? `${how}: ${exit.lastWords}` : how;
}
