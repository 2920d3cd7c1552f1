import { AgentLinkError, type AgentAnswer } from '../agents';
import type { JobState } from './entities/job-client';

/** How a sent client ended: its state, the agent's status when it answered, and what happened in words. */
export interface Ending {
  state: Extract<JobState, 'done' | 'failed' | 'timed_out'>;
  status: number | null;
  outcome: string;
}

/** An answer: done when the agent said 200/202 and what it said was stored (`result`), failed otherwise. */
export function answered(answer: AgentAnswer): Ending {
  const accepted = answer.status === 200 || answer.status === 202;
  if (accepted && answer.result !== 'failure') return { state: 'done', status: answer.status, outcome: 'success' };
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
