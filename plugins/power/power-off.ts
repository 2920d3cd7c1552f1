import type { AgentCommands, AgentLink, Asker } from '../agents';
import { sendCommand } from '../agents';

/** Why a PC was left on or not woken: its agent's state or the wake's own reason. */
export interface Skip {
  client: string;
  reason: string;
}

/** States a calendar does not power off unless forced: a user session, or a command running (an image restore). */
const leftOn: Record<string, string> = { LNXS: 'user_session', WINS: 'user_session', BSY: 'busy' };

/**
 * Power off the PCs whose agent is connected, skipping those in a user session or busy
 * unless `force`. Sent on the agents' command path, so the power-off is a job (GET /jobs),
 * whose id it resolves with once written (none without the jobs plugin).
 */
export async function powerOff(
  link: Pick<AgentLink, 'listing' | 'isConnected' | 'dispatch' | 'observers'>,
  commands: Pick<AgentCommands, 'get'>,
  clients: string[],
  force: boolean,
  asker: Asker = { name: 'power', source: 'calendar' },
): Promise<{ sent: string[]; skipped: Skip[]; job?: number }> {
  const states = new Map(link.listing().map((entry) => [entry.addr, entry.state]));
  const send: string[] = [];
  const skipped: Skip[] = [];
  for (const ip of clients) {
    const reason = !link.isConnected(ip) ? 'not_connected' : force ? undefined : leftOn[states.get(ip) ?? ''];
    if (reason) skipped.push({ client: ip, reason });
    else send.push(ip);
  }
  const poweroff = commands.get('poweroff');
  if (send.length === 0 || !poweroff) return { sent: [], skipped };
  const dispatch = await sendCommand(link, poweroff, {}, send, asker);
  const sent: string[] = [];
  for (const { addr, outcome } of dispatch.outcomes) {
    if (outcome === 'sent') sent.push(addr);
    else skipped.push({ client: addr, reason: outcome });
  }
  const job = await dispatch.job;
  return job === undefined ? { sent, skipped } : { sent, skipped, job };
}
