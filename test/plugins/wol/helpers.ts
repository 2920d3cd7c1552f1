import assert from 'node:assert/strict';
import 'reflect-metadata';
import { container } from 'tsyringe';
import type { Clock } from '../../../core/clock';
import { AgentLink } from '../../../plugins/agents';
import { WolClock } from '../../../plugins/wol';
import { FakeAgent, eventually } from '../../support/fake-agent';
import { addCenter, addClient, addRoom, macFor } from '../../support/fixtures';
import { startServer, type TestServer } from '../../support/server';
import { UdpReceiver } from '../../support/udp-receiver';

export interface ClientEntry {
  addr: string;
  state: string;
  speed?: number;
  last_cmd: { result: string };
}

export interface WolSite {
  s: TestServer;
  link: AgentLink;
  /** Client addresses 127.0.2.1, 127.0.2.2, ... with MACs macFor(1), macFor(2), ... */
  ips: string[];
  /** wol.port: every receiver listens on it. */
  port: number;
  /** Bound to 127.255.255.255: the directed broadcast of a /8 room. */
  broadcast: UdpReceiver;
  /** Another receiver on `port` (a client's unicast address, a /24 broadcast address). */
  receiver(address: string): Promise<UdpReceiver>;
  connect(ip: string): Promise<FakeAgent>;
  clients(): Promise<ClientEntry[]>;
  close(): Promise<void>;
}

export interface SiteOptions {
  count?: number;
  netmask?: string;
  wol?: Record<string, unknown>;
  /** Extra fields of every client/add (e.g. its own `netmask`). */
  client?: Record<string, unknown>;
  /** The wol plugin's clock (a ManualClock), injected through WolClock; the system clock by default. */
  clock?: Clock;
}

/** A server with the wol plugin, `count` clients on 127.0.2.x in one room, and loopback receivers. */
export async function wolSite(options: SiteOptions = {}): Promise<WolSite> {
  const broadcast = await UdpReceiver.bind('127.255.255.255');
  const port = broadcast.port;
  const receivers: UdpReceiver[] = [broadcast];
  const agents: FakeAgent[] = [];
  let s: TestServer | undefined;
  try {
    const services = container.createChildContainer();
    if (options.clock) services.register(WolClock, { useValue: options.clock });
    s = await startServer({ container: services, config: { plugins: ['inventory', 'agents', 'wol'], wol: { port, ...options.wol } } });
    const server = s;
    const room = await addRoom(s, await addCenter(s), 'Lab', options.netmask ?? '255.0.0.0');
    const ips: string[] = [];
    for (let i = 1; i <= (options.count ?? 2); i++) {
      ips.push(`127.0.2.${i}`);
      await addClient(s, room, `127.0.2.${i}`, macFor(i), options.client);
    }
    const link = s.app.container.resolve(AgentLink);
    const clients = async (): Promise<ClientEntry[]> => {
      const r = await server.get('/clients');
      assert.equal(r.status, 200, `GET /clients: ${r.text}`);
      return r.body.clients;
    };
    return {
      s,
      link,
      ips,
      port,
      broadcast,
      async receiver(address) {
        const receiver = await UdpReceiver.bind(address, port);
        receivers.push(receiver);
        return receiver;
      },
      async connect(ip) {
        const agent = await FakeAgent.connect({ port: link.port(), localAddress: ip });
        agents.push(agent);
        await agent.waitFor('refresh');
        await eventually(
          async () => (await clients()).some((c) => c.addr === ip && c.state !== 'WOL_SENT' && c.last_cmd.result !== 'unknown'),
          `${ip} connected`,
        );
        return agent;
      },
      clients,
      async close() {
        for (const agent of agents) agent.destroy();
        await server.close();
        for (const receiver of receivers) await receiver.close();
      },
    };
  } catch (error) {
    await s?.close();
    for (const receiver of receivers) await receiver.close();
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
