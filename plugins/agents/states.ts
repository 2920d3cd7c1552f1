import type { AgentState } from './types';

/**
 * State changes driven by what agents say: probe answers and 103 session events.
 * Pure functions, so the rules are testable without sockets.
 */

export interface ProbeOutcome {
  state?: AgentState;
  speed?: number;
  busy: boolean;
}

/**
 * A probe answer. 200 `{"status":"OPG"|"VDI"|"BSY"|"LINUX"|"WIN", "speed"?}`; 202 is the
 * agent's "busy" reply with the same object (status BSY), which the reference ignores and
 * we read. LNX and WIN are not set by a probe: they come from the refresh answer.
 * Returns undefined for an answer that says nothing usable (500, no status).
 */
export function readProbe(status: number, body: unknown): ProbeOutcome | undefined {
  if (status !== 200 && status !== 202) return undefined;
  const answer = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const speed =
    typeof answer.speed === 'number' && Number.isInteger(answer.speed) && answer.speed >= 0 && answer.speed <= 0xffffffff
      ? answer.speed
      : undefined;
  if (status === 202) return { busy: true, speed };
  if (typeof answer.status !== 'string') return undefined;
  if (answer.status === 'BSY') return { busy: true, speed };
  if (answer.status === 'OPG') return { state: 'OPG', busy: false, speed };
  if (answer.status === 'VDI') return { state: 'VDI', busy: false, speed };
  return { busy: false, speed };
}

export type EventOutcome =
  | { ok: true; state: AgentState; action: 'logged in' | 'logged out'; user: string; os: 'Linux' | 'Windows' }
  | { ok: false; why: string };

const transitions: Record<string, { start?: AgentState; stop?: AgentState; os: 'Linux' | 'Windows' }> = {
  LNX: { start: 'LNXS', os: 'Linux' },
  LNXS: { stop: 'LNX', os: 'Linux' },
  WIN: { start: 'WINS', os: 'Windows' },
  WINS: { stop: 'WIN', os: 'Windows' },
};

/**
 * A 103 event `{"event":"session","action":"start"|"stop","user":"..."}`: WIN<->WINS and
 * LNX<->LNXS. Anything else is refused (the caller logs and ignores it; unlike the
 * reference, it does not drop the agent).
 */
export function readEvent(current: AgentState, body: unknown): EventOutcome {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { ok: false, why: 'the event is not a JSON object' };
  const { event, action, user } = body as Record<string, unknown>;
  if (event !== 'session') return { ok: false, why: `unknown event ${JSON.stringify(event)?.slice(0, 40)}` };
  if (action !== 'start' && action !== 'stop') return { ok: false, why: `unknown session action ${JSON.stringify(action)?.slice(0, 40)}` };
  if (typeof user !== 'string') return { ok: false, why: "the session event has no 'user' string" };
  const next = transitions[current]?.[action];
  if (!next) return { ok: false, why: `session ${action} makes no sense in state ${current}` };
  return {
    ok: true,
    state: next,
    action: action === 'start' ? 'logged in' : 'logged out',
    user: user.slice(0, 256),
    os: transitions[current]!.os,
  };
}
