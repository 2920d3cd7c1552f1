import { AgentLinkError, type AgentAnswer } from '../agents';
import type { JobState } from './entities/job-client';

/** How a sent client ended: its state, the agent's status when it answered, and what happened in words. */
export interface Ending {
  state: Extract<JobState, 'done' | 'failed' | 'timed_out'>;
  status: number | null;
  outcome: string;
  /** The exit code the agent reported (a script's `retcode`), when it reported one. */
  code?: number;
  /** What the command printed (`out`), its last `outputChars` characters, when the agent sent it. */
  output?: string;
}

/** The most of a command's output a job keeps per PC: its end, where the error usually is. */
export const outputChars = 4000;

/** What the agent reported of the command itself: an exit code (`retcode`) and its output (`out`). */
function reported(body: unknown): { code?: number; output?: string } {
  if (typeof body !== 'object' || body === null) return {};
  const { retcode, out } = body as Record<string, unknown>;
  const code = Number.isSafeInteger(retcode) ? (retcode as number) : undefined;
  const output = typeof out === 'string' ? (out.length > outputChars ? `…${out.slice(-outputChars)}` : out) : undefined;
  return { ...(code === undefined ? {} : { code }), ...(output === undefined ? {} : { output }) };
}

/**
 * An answer: done when the agent said 200/202, what it said was stored (`result`) and the
 * command's own exit code, when it reported one, is 0; failed otherwise (`exit code 2`).
 */
export function answered(answer: AgentAnswer): Ending {
  const accepted = answer.status === 200 || answer.status === 202;
  const said = answer.status === 200 ? reported(answer.body) : {};
  if (accepted && said.code !== undefined && said.code !== 0)
    return { state: 'failed', status: answer.status, outcome: `exit code ${said.code}`, ...said };
  if (accepted && answer.result !== 'failure') return { state: 'done', status: answer.status, outcome: 'success', ...said };
  const outcome = accepted ? 'the answer could not be stored' : `the agent answered ${answer.status}`;
  return { state: 'failed', status: answer.status, outcome };
}

/**
 * No answer: the agent link's timeout, a dropped connection (the success of a command the
 * agent answers by leaving, such as stop) or an unreadable answer.
 */
export function unanswered(error: unknown, endsWithDisconnect: boolean): Ending {
  const reason = error instanceof AgentLinkError ? error.reason : undefined;
  if (reason === 'timeout') return { state: 'timed_out', status: null, outcome: (error as Error).message };
  if (reason === 'disconnected' && endsWithDisconnect) return { state: 'done', status: null, outcome: 'the agent stopped' };
  return { state: 'failed', status: null, outcome: (error as Error).message };
}

/** A client still running when its job's own timeout (jobs.timeouts_s) fell. */
export function timedOut(seconds: number): Ending {
  return { state: 'timed_out', status: null, outcome: `no answer within ${seconds} s` };
}
