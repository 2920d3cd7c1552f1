import type { Socket } from 'node:net';
import { type Logger, StartupError } from 'ogserve';
import type { AnswerParsing } from './answer-parsing';
import { type Configuration, readConfiguration } from './configuration';
import { AgentConnection, type ConnectionOwner } from './connection';
import { readHardware } from './hardware';
import type { AgentAnswer, AgentRequest } from './types';

/**
 * An agent from an address no client has, that another plugin took (the enrol plugin's
 * discovered PCs): it is sent only what these methods send, the inventory and power
 * commands, and is in no listing, dispatch or event of the clients' agents.
 */
export interface GuestAgent {
  readonly ip: string;
  /** GET /refresh: a live agent's disks and serial number, or a Linux or Windows agent's kind. */
  refresh(): Promise<Configuration>;
  /** GET /hardware: its components, `{type, description}` with the reference's type codes. */
  hardware(): Promise<{ type: string; description: string }[]>;
  /** POST /poweroff or /reboot: the agent answers, then leaves. */
  power(kind: 'poweroff' | 'reboot'): Promise<void>;
  /** Close the connection (the agent connects again a second later, and is asked about again). */
  close(reason: string): void;
  /** Resolves with the reason once the connection is closed, by either side. */
  readonly closed: Promise<string>;
}

/**
 * What becomes of an agent from an address no client has: a function that takes it as a
 * guest, or undefined to refuse it (closed and logged, as without a gate).
 */
export type GuestGate = (ip: string) => Promise<((guest: GuestAgent) => void) | undefined>;

interface GuestTimes {
  commandTimeoutMs: number;
  answerTimeoutMs: number;
  maxAnswerBytes: number;
}

/** What a guest connection knows of its peer: how to tell its taker that it closed. */
interface GuestPeer {
  closed(reason: string): void;
}

/** The guests held here, by address: one gate decides which strangers become one. */
export class GuestLink {
  private gate?: GuestGate;
  private stopped = false;
  private readonly held = new Map<string, AgentConnection<GuestPeer>>();
  private readonly owner: ConnectionOwner<GuestPeer>;

  constructor(log: Logger, parsing: AnswerParsing, times: GuestTimes) {
    this.owner = {
      log,
      parsing,
      ...times,
      probeTimeoutMs: times.commandTimeoutMs,
      // Nothing is stored for a guest: its taker reads the answers.
      commandAnswered: async (_conn, _pending, answer) => (answer.status === 200 || answer.status === 202 ? 'success' : 'failure'),
      probeAnswered: () => undefined,
      event: () => undefined,
      closed: (conn, reason) => {
        if (this.held.get(conn.ip) === conn) this.held.delete(conn.ip);
        conn.client.closed(reason);
      },
    };
  }

  /** The one gate (a second one stops the start). */
  admit(gate: GuestGate, by: string): void {
    if (this.gate) throw new StartupError(`agents: ${by} asks to take agents from unknown addresses, which another plugin does already`);
    this.gate = gate;
  }

  get admitting(): boolean {
    return this.gate !== undefined;
  }

  /** How many guests are held here. */
  get size(): number {
    return this.held.size;
  }

  /** Ask the gate about a stranger; true when it was taken (its socket is then the guest's). */
  async take(socket: Socket, ip: string): Promise<boolean> {
    const taker = this.gate ? await this.gate(ip) : undefined;
    if (!taker || socket.destroyed || this.stopped) return false;
    let closed!: (reason: string) => void;
    const whenClosed = new Promise<string>((resolve) => (closed = resolve));
    const conn = new AgentConnection<GuestPeer>(socket, ip, { closed }, this.owner);
    this.held.get(ip)?.close('replaced by a new connection from the same address');
    this.held.set(ip, conn);
    socket.resume();
    taker(guestAgent(conn, whenClosed));
    return true;
  }

  closeAll(reason: string): void {
    this.stopped = true;
    for (const conn of [...this.held.values()]) conn.close(reason);
  }
}

/** The taker's handle on one guest connection. */
function guestAgent(conn: AgentConnection<GuestPeer>, closed: Promise<string>): GuestAgent {
  const send = async (request: AgentRequest): Promise<AgentAnswer> => {
    const answer = await conn.command(request);
    if (answer.status !== 200 && answer.status !== 202) throw new Error(`the agent answered ${answer.status} to ${request.path}`);
    return answer;
  };
  return {
    ip: conn.ip,
    closed,
    refresh: async () => readConfiguration((await send({ method: 'GET', path: 'refresh' })).body),
    hardware: async () => readHardware((await send({ method: 'GET', path: 'hardware' })).body),
    power: async (kind) => {
      await send({ method: 'POST', path: kind, force: true });
    },
    close: (reason) => conn.close(reason),
  };
}
