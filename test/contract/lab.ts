import { AgentLink } from '../../plugins/agents';
import { FakeAgent, eventually, type FakeAgentOptions } from '../support/fake-agent';
import { macFor } from '../support/fixtures';
import { startServer, type TestServer } from '../support/server';
import { UdpReceiver } from '../support/udp-receiver';
import * as ogcp from './ogcp';
import { PythonClient } from './python-client';

/**
 * A server with one center, one room (255.255.255.0) and clients 127.0.1.1, 127.0.1.2, ...
 * built the way ogCP builds them: its add-center, add-room and add-client bodies, ids read
 * back from /scopes as ogCP reads them. Magic packets stay on loopback: the room's
 * broadcast is 127.0.1.255 and `wol.port` is that of a receiver bound there.
 */
export interface Lab {
  s: TestServer;
  /** The clients' one server connection (ogCLI and ogCP send the same way). */
  py: PythonClient;
  center: number;
  room: number;
  /** The repository every client is assigned: repository 1, given the lab address by the administrator. */
  repository: number;
  repositoryIp: string;
  ips: string[];
  /** Receives what /wol sends to the room's broadcast address. */
  broadcast: UdpReceiver;
  /** Another receiver on the wol port (a client's own address, for unicast). */
  receiver(address: string): Promise<UdpReceiver>;
  /** Connect an agent from `ip` and wait until its connect refresh is stored. */
  connect(ip: string, options?: Partial<FakeAgentOptions>): Promise<FakeAgent>;
  /** The GET /clients entry of `ip` once it runs no command. */
  settled(ip: string): Promise<any>;
  close(): Promise<void>;
}

export const labNetmask = '255.255.255.0';

/** What a site running ogCP sets so that its pages read sizes and uptime as it expects (README). */
export const ogcpSettings = { inventory: { setup_size_unit: 'KiB' }, stats: { start: 'uptime' } };

export async function lab(count: number, config: Record<string, unknown> = {}): Promise<Lab> {
  const broadcast = await UdpReceiver.bind('127.0.1.255');
  const receivers = [broadcast];
  const agents: FakeAgent[] = [];
  let s: TestServer | undefined;
  try {
    s = await startServer({ config: { ...config, wol: { port: broadcast.port } } });
    const server = s;
    const py = new PythonClient(s.port);
    await ogcp.addCenter(py, 'Escuela', 'main building');
    const center = ogcp.nodesOfType(await py.read('/scopes'), 'center')[0].id;
    await ogcp.addRoom(py, center, 'Aula 1', labNetmask);
    const room = ogcp.nodesOfType(await py.read('/scopes'), 'room')[0].id;
    // The administrator gives repository 1, the one ogCP's add-client form sends, the lab's address.
    const repositoryIp = '127.0.1.250';
    const repo = await s.post('/repository/update', { repo_id: 1, name: 'Repositorio (Default)', ip: repositoryIp });
    if (repo.status !== 200) throw new Error(`repository/update: ${repo.text}`);
    const ips: string[] = [];
    for (let i = 1; i <= count; i++) {
      const ip = `127.0.1.${i}`;
      ips.push(ip);
      await ogcp.addClient(py, {
        boot: 'ogLive',
        ip,
        livedir: 'ogLive',
        mac: macFor(i),
        maintenance: false,
        name: `pc${String(i).padStart(2, '0')}`,
        netdriver: 'generic',
        netiface: 'eth0',
        netmask: labNetmask,
        remote: false,
        repo_id: 1,
        room,
        serial_number: '',
      });
    }
    const link = s.app.container.resolve(AgentLink);
    const settled = (ip: string) =>
      eventually(async () => {
        const entry = (await py.read('/clients')).clients.find((c: any) => c.addr === ip);
        return entry && entry.state !== 'BSY' && entry.last_cmd.result !== 'unknown' ? entry : undefined;
      }, `${ip} idle`);
    return {
      s,
      py,
      center,
      room,
      repository: 1,
      repositoryIp,
      ips,
      broadcast,
      async receiver(address) {
        const receiver = await UdpReceiver.bind(address, broadcast.port);
        receivers.push(receiver);
        return receiver;
      },
      async connect(ip, options = {}) {
        const agent = await FakeAgent.connect({ port: link.port(), localAddress: ip, ...options });
        agents.push(agent);
        await agent.waitFor('refresh');
        await settled(ip);
        return agent;
      },
      settled,
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
