import 'reflect-metadata';
import { container } from 'tsyringe';
import { type Clock, SystemClock } from '../../../core/clock';
import type { AgentLink } from '../../../plugins/agents';
import type { Inventory } from '../../../plugins/inventory';
import { WolClock } from '../../../plugins/wol';
import { WakeRuns } from '../../../plugins/wol/runs';
import { type Lab, addresses, startLab } from '../../support/lab';
import { UdpReceiver } from '../../support/udp-receiver';

export type { ClientEntry } from '../../support/lab';

export interface WolSite extends Lab {
  /** wol.port: every receiver listens on it. */
  port: number;
  /** Bound to 127.255.255.255: the directed broadcast of a /8 room. */
  broadcast: UdpReceiver;
  /** Another receiver on `port` (a client's unicast address, a /24 broadcast address). */
  receiver(address: string): Promise<UdpReceiver>;
}

export interface SiteOptions {
  count?: number;
  netmask?: string;
  wol?: Record<string, unknown>;
  /** Extra fields of every client/add (e.g. its own `netmask`). */
  client?: Record<string, unknown>;
  /** The wol plugin's clock (a ManualClock), injected through WolClock; the system clock by default. */
  clock?: Clock;
  /** Plugins enabled besides inventory, agents and wol (metrics, jobs). */
  plugins?: string[];
}

/** A server with the wol plugin, `count` clients 127.0.2.1, ... (MACs macFor(1), ...) in one room, and loopback receivers. */
export async function wolSite(options: SiteOptions = {}): Promise<WolSite> {
  const broadcast = await UdpReceiver.bind('127.255.255.255');
  const port = broadcast.port;
  const receivers: UdpReceiver[] = [broadcast];
  const closeReceivers = async () => {
    for (const receiver of receivers) await receiver.close();
  };
  try {
    const services = container.createChildContainer();
    if (options.clock) services.register(WolClock, { useValue: options.clock });
    const lab = await startLab({
      ips: addresses('127.0.2', options.count ?? 2),
      server: {
        container: services,
        config: { plugins: ['inventory', 'agents', 'wol', ...(options.plugins ?? [])], wol: { port, ...options.wol } },
      },
      netmask: options.netmask ?? '255.0.0.0',
      client: options.client,
    });
    return {
      ...lab,
      port,
      broadcast,
      async receiver(address) {
        const receiver = await UdpReceiver.bind(address, port);
        receivers.push(receiver);
        return receiver;
      },
      async close() {
        await lab.close();
        await closeReceivers();
      },
    };
  } catch (error) {
    await closeReceivers();
    throw error;
  }
}

/** Magic packet bytes written out by hand, independent of the plugin's own builder. */
export function expectedPacket(mac: string): Buffer {
  const bytes = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff];
  for (let i = 0; i < 16; i++) for (let j = 0; j < 12; j += 2) bytes.push(Number.parseInt(mac.slice(j, j + 2), 16));
  return Buffer.from(bytes);
}

export const noSkips = { malformed: [], not_found: [], connected: [], invalid_record: [], send_failed: [] };

/** Wake runs as the plugin makes them by default but unverified, for a Waker made by hand: everything sent at once, once. */
export function plainRuns(inventory: Inventory, link: AgentLink): WakeRuns {
  const config = { batch: 0, interval_ms: 0, repeats: 1, repeat_ms: 1000, rooms: {}, centers: {}, verify_s: 0, retries: 0, runs_kept: 50 };
  return new WakeRuns(config, new SystemClock(), inventory, link);
}
