import type { Clock, Logger, PluginEvents } from 'ogserve';
import { type AgentCommand, type AgentLink, type Asker, sendCommand } from '../agents';

interface Waiting {
  ips: Set<string>;
  ready: Set<string>;
  command: AgentCommand;
  params: Record<string, unknown>;
  asker?: Asker;
  cancel(): void;
}

/** A state the agent of a client settles in once up and idle (not busy, not off). */
const settled = (state: string) => state !== 'BSY' && state !== 'OFF';

/**
 * The restore asked with an assignment: sent as one command (one job) once every new
 * client's agent is up and idle after its reboot, or at `enrol.restore_wait_s` to those that
 * are (the others named in `discovered.restore`).
 */
export class RestoreAfter {
  private readonly waiting = new Set<Waiting>();

  constructor(
    private readonly link: AgentLink,
    private readonly events: PluginEvents,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly waitMs: number,
  ) {
    events.on(
      'client.state',
      ({ client, new: state }) => {
        for (const wait of this.waiting) {
          if (!wait.ips.has(client)) continue;
          if (settled(state)) wait.ready.add(client);
          else wait.ready.delete(client);
          if (wait.ready.size === wait.ips.size) void this.send(wait);
        }
      },
      'restore new clients once they are up',
    );
  }

  start(ips: string[], command: AgentCommand, params: Record<string, unknown>, asker?: Asker): void {
    const wait: Waiting = { ips: new Set(ips), ready: new Set(), command, params, asker, cancel: () => undefined };
    wait.cancel = this.clock.setTimer(this.clock.now() + this.waitMs, () => void this.send(wait));
    this.waiting.add(wait);
  }

  stop(): void {
    for (const wait of this.waiting) wait.cancel();
    this.waiting.clear();
  }

  private async send(wait: Waiting): Promise<void> {
    if (!this.waiting.delete(wait)) return;
    wait.cancel();
    const clients = [...wait.ips].filter((ip) => wait.ready.has(ip));
    const missing = [...wait.ips].filter((ip) => !wait.ready.has(ip));
    try {
      const dispatch = clients.length > 0 ? await sendCommand(this.link, wait.command, wait.params, clients, wait.asker) : undefined;
      const job = await dispatch?.job;
      void this.events.emit('discovered.restore', { clients, missing, ...(job === undefined ? {} : { job }) });
    } catch (error) {
      this.log.error({ err: error, clients }, `restore of the new clients not sent: ${(error as Error).message}`);
    }
  }
}
