import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';

/** The script of a child process holding many fake agents (agent-swarm.ts). */
export const agentSwarmScript = path.join(__dirname, 'agent-swarm.js');

export interface Swarm {
  child: ChildProcess;
  connected: number;
  /** Close every agent and end the process. */
  stop(): void;
}

/**
 * Fake agents in a child process, connecting to `port` from `ips`: their answers come from
 * another process, as real agents' do, not between the server's own turns. Resolves once
 * every agent tried to connect.
 */
export async function forkSwarm(port: number, ips: string[]): Promise<Swarm> {
  const child = fork(agentSwarmScript, [String(port), ...ips], { stdio: 'inherit' });
  const report = await new Promise<{ connected: number }>((resolve) => child.once('message', (m) => resolve(m as { connected: number })));
  return { child, connected: report.connected, stop: () => child.send('stop') };
}
