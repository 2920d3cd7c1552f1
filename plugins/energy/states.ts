/**
 * A PC's power states: `off` (no agent connected), `idle` (on, nobody signed in: LNX, WIN,
 * VDI), `session` (on with a user session: LNXS, WINS), `busy` (in ogLive or working for the
 * server: OPG, BSY, and the boot after a wake-on-LAN packet until the agent connects).
 */
export const powerStates = ['off', 'idle', 'session', 'busy'] as const;
export type PowerState = (typeof powerStates)[number];

/** Milliseconds spent in each state. */
export type StateTimes = Record<PowerState, number>;

export const noTime = (): StateTimes => ({ off: 0, idle: 0, session: 0, busy: 0 });

const byAgentState: Readonly<Record<string, PowerState>> = {
  OFF: 'off',
  LNX: 'idle',
  WIN: 'idle',
  VDI: 'idle',
  LNXS: 'session',
  WINS: 'session',
  OPG: 'busy',
  BSY: 'busy',
};

/** The power state of a state GET /clients shows (the agents' `client.state`); undefined for one it does not know. */
export function powerStateOf(agentState: string): PowerState | undefined {
  return byAgentState[agentState];
}
