import type { PluginEvents, Logger } from 'ogserve';
import { logCommandFailure } from './command-failures';
import type { AgentConnection } from './connection';
import { HolderGone } from './remote';
import { AgentLinkError, type AgentAnswer, type AgentRequest } from './types';

/** What the agents plugin announces on the event bus. */
declare module 'ogserve' {
  interface EventMap {
    'agent.connected': { client: string; name: string };
    'agent.disconnected': { client: string; reason: string };
    /** The state GET /clients shows changed; OFF when the agent is not connected. */
    'client.state': { client: string; old: string; new: string };
    'command.sent': { client: string; command: string };
    'command.answered': { client: string; command: string; outcome: 'answered'; status: number; result: string; duration_ms: number };
    'command.failed': { client: string; command: string; outcome: 'failed'; reason: string; duration_ms: number };
    'command.timed_out': { client: string; command: string; outcome: 'timed_out'; duration_ms: number };
    /** A user signed in to the PC (`start`) or out (`stop`), as its agent reported it (an unsolicited 103 event). */
    'client.session': { client: string; action: 'start' | 'stop'; user: string; os: 'Linux' | 'Windows' };
  }
  interface InternalEventMap {
    /** An agent another instance holds was seen idle (just connected, or done with a command): queued work may follow. */
    'agent.idle': { client: string };
    /**
     * A hardware inventory was stored (committed): the components it replaced and the new
     * ones, each `{type, description}` with the 3-letter type code, in the agent's order.
     */
    'client.hardware.reported': {
      client: string;
      clientId: number;
      before: { type: string; description: string }[];
      after: { type: string; description: string }[];
    };
    /** A partition's software inventory was stored: the lines it replaced and the new ones (the OS line first). */
    'client.software.reported': { client: string; clientId: number; disk: number; partition: number; before: string[]; after: string[] };
  }
}

/** The state an agent that is not connected is announced in. */
const off = 'OFF';

/**
 * Turns what happens on the agent link into events: connections, the shown state of each
 * client (announced only when it changes), and each command's life from sent to its end,
 * with a log line for each command that failed.
 */
export class LinkAnnouncer {
  private readonly announced = new WeakMap<AgentConnection, string>();

  constructor(
    private readonly events: PluginEvents,
    private readonly log: Logger,
    /** Whether the agent answers `path` by closing its connection (stop): that disconnect is no failure. */
    private readonly endsWithDisconnect: (path: string) => boolean,
  ) {}

  connected(conn: AgentConnection): void {
    void this.events.emit('agent.connected', { client: conn.ip, name: conn.client.name });
  }

  disconnected(conn: AgentConnection, reason: string): void {
    const old = this.announced.get(conn) ?? off;
    void this.events.emit('agent.disconnected', { client: conn.ip, reason });
    if (old !== off) void this.events.emit('client.state', { client: conn.ip, old, new: off });
    this.announced.set(conn, off);
  }

  /** Call after anything that may change what GET /clients shows for this connection. */
  state(conn: AgentConnection): void {
    if (!conn.isOpen) return;
    const shown = conn.shownState;
    const old = this.announced.get(conn) ?? off;
    if (shown === old) return;
    this.announced.set(conn, shown);
    void this.events.emit('client.state', { client: conn.ip, old, new: shown });
  }

  /** A user session began or ended on `conn`'s PC: announced after its state. */
  session(conn: AgentConnection, action: 'start' | 'stop', user: string, os: 'Linux' | 'Windows'): void {
    void this.events.emit('client.session', { client: conn.ip, action, user, os });
  }

  /** A command written (or queued) to `conn`: announce it, then how it ended. */
  command(conn: AgentConnection, request: AgentRequest, answer: Promise<AgentAnswer>): void {
    const started = performance.now();
    const client = conn.ip;
    const command = request.path;
    const duration = () => Math.round((performance.now() - started) * 10) / 10;
    void this.events.emit('command.sent', { client, command });
    answer.then(
      (a) => {
        void this.events.emit('command.answered', {
          client,
          command,
          outcome: 'answered',
          status: a.status,
          result: a.result ?? 'unknown',
          duration_ms: duration(),
        });
        this.state(conn);
      },
      (error: unknown) => {
        this.ended(client, command, error, duration());
        this.state(conn);
      },
    );
    this.state(conn);
  }

  /**
   * A command sent through another instance: that instance announces it and how it ends,
   * unless it goes away first; then this one, which asked, announces the failure.
   */
  relayed(client: string, request: AgentRequest, answer: Promise<AgentAnswer>): void {
    const started = performance.now();
    answer.catch((error: unknown) => {
      if (error instanceof HolderGone) this.ended(client, request.path, error, Math.round((performance.now() - started) * 10) / 10);
    });
  }

  private ended(client: string, command: string, error: unknown, duration_ms: number): void {
    const linkError = error instanceof AgentLinkError ? error : undefined;
    if (linkError?.reason === 'timeout') void this.events.emit('command.timed_out', { client, command, outcome: 'timed_out', duration_ms });
    else void this.events.emit('command.failed', { client, command, outcome: 'failed', reason: linkError?.reason ?? 'error', duration_ms });
    if (linkError?.reason === 'disconnected' && this.endsWithDisconnect(command)) return;
    logCommandFailure(this.log, client, command, (error as Error).message);
  }
}
