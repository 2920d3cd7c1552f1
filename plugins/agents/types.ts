/** The public contract of the agents plugin, used by wol, shell, images, cache and scheduler. */

export interface AgentRequest {
  method: 'GET' | 'POST';
  /** The command path without its leading slash, e.g. 'refresh', 'shell/run'. */
  path: string;
  /** Compact JSON sent to the agent; no body when absent. */
  body?: object;
  /** Sent even when the client is busy: poweroff, reboot, stop (as the reference). */
  force?: boolean;
}

export type Outcome = 'sent' | 'busy' | 'not_connected';

export interface Dispatch {
  /** One entry per distinct address asked, in the order asked. */
  outcomes: { addr: string; outcome: Outcome }[];
  /** The answer of every client the request was sent to; rejects on timeout or disconnect. */
  answers: Map<string, Promise<AgentAnswer>>;
  /** On the command path: the id a dispatch observer gives it (the jobs plugin's job), once written. */
  job?: Promise<number | undefined>;
}

export interface AgentAnswer {
  ip: string;
  status: number;
  /** The parsed JSON body; undefined when the answer had none. */
  body: unknown;
  /**
   * Commands only: 'success' when the agent answered 200 or 202 and every answer handler
   * stored what it reads from the answer; 'failure' otherwise (as GET /clients shows it).
   */
  result?: LastResult;
}

export type LastResult = 'success' | 'failure' | 'unknown';

export interface ClientListing {
  addr: string;
  state: string;
  speed?: number;
  last_cmd: { result: LastResult };
}

/** The states a connected agent is shown in; BSY while a command runs. */
export type AgentState = 'OPG' | 'BSY' | 'VDI' | 'LNX' | 'LNXS' | 'WIN' | 'WINS';

/** Why a promise of `Dispatch.answers` rejected. */
export class AgentLinkError extends Error {
  constructor(
    readonly reason: 'timeout' | 'disconnected' | 'interrupted' | 'bad_answer',
    message: string,
  ) {
    super(message);
    this.name = 'AgentLinkError';
  }
}
