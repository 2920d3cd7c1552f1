import { type FakeAgent, eventually, type FakeAgentOptions } from '../support/fake-agent';
import { macFor } from '../support/fixtures';
import { addresses, startLab } from '../support/lab';
import type { TestServer } from '../support/server';
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

/** What a site running ogCP sets so that its pages read sizes and uptime as it expects (docs/moving-from-opengnsys.md). */
export const ogcpSettings = { inventory: { setup_size_unit: 'KiB' }, stats: { start: 'uptime' } };

export async function lab(count: number, config: Record<string, unknown> = {}): Promise<Lab> {
  const broadcast = await UdpReceiver.bind('127.0.1.255');
  const receivers = [broadcast];
  const closeReceivers = async () => {
    for (const receiver of receivers) await receiver.close();
  };
  try {
    let py: PythonClient | undefined;
    const repositoryIp = '127.0.1.250';
    const built = await startLab({
      ips: addresses('127.0.1', count),
      server: { config: { ...config, wol: { port: broadcast.port } } },
      async populate(s, ips) {
        py = new PythonClient(s.port);
        await ogcp.addCenter(py, 'Escuela', 'main building');
        const center = ogcp.nodesOfType(await py.read('/scopes'), 'center')[0].id;
        await ogcp.addRoom(py, center, 'Aula 1', labNetmask);
        const room = ogcp.nodesOfType(await py.read('/scopes'), 'room')[0].id;
        // The administrator gives repository 1, the one ogCP's add-client form sends, the lab's address.
        const repo = await s.post('/repository/update', { repo_id: 1, name: 'Repositorio (Default)', ip: repositoryIp });
        if (repo.status !== 200) throw new Error(`repository/update: ${repo.text}`);
        for (const [i, ip] of ips.entries()) {
          await ogcp.addClient(py, {
            boot: 'ogLive',
            ip,
            livedir: 'ogLive',
            mac: macFor(i + 1),
            maintenance: false,
            name: `pc${String(i + 1).padStart(2, '0')}`,
            netdriver: 'generic',
            netiface: 'eth0',
            netmask: labNetmask,
            remote: false,
            repo_id: 1,
            room,
            serial_number: '',
          });
        }
        return { center, room };
      },
    });
    const client = py!;
    return {
      ...built,
      py: client,
      repository: 1,
      repositoryIp,
      broadcast,
      async receiver(address) {
        const receiver = await UdpReceiver.bind(address, broadcast.port);
        receivers.push(receiver);
        return receiver;
      },
      connect: (ip, options) => built.connect(ip, options),
      // Read the way ogCP reads it.
      settled: (ip) =>
        eventually(async () => {
          const entry = (await client.read('/clients')).clients.find((c: any) => c.addr === ip);
          return entry && entry.state !== 'BSY' && entry.last_cmd.result !== 'unknown' ? entry : undefined;
        }, `${ip} idle`),
      async close() {
        await built.close();
        await closeReceivers();
      },
    };
  } catch (error) {
    await closeReceivers();
    throw error;
  }
}
