import assert from 'node:assert/strict';
import { AgentLink } from '../../plugins/agents';
import { FakeAgent, eventually, type FakeAgentOptions } from './fake-agent';
import { addCenter, addClient, addRoom, macFor } from './fixtures';
import { type StartOptions, type TestServer, startServer } from './server';

/** A client as GET /clients lists it. */
export interface ClientEntry {
  addr: string;
  state: string;
  speed?: number;
  last_cmd: { result: string };
}

export interface LabOptions {
  /** The clients' addresses, given MACs macFor(1), macFor(2), ... in that order. */
  ips: string[];
  server?: StartOptions;
  /**
   * How the center, room and clients are made: by default through the REST API with the
   * options below; a function makes them its own way (as ogCP does) and says which they are;
   * false makes none (a restart on a populated directory): `center` and `room` are then 0.
   */
  populate?: false | ((s: TestServer, ips: string[]) => Promise<{ center: number; room: number }>);
  /** The room's netmask (255.255.255.0). */
  netmask?: string;
  /** Runs once the room exists; what it answers is added to every client/add (a repository's `repo_id`). */
  prepare?(s: TestServer): Promise<Record<string, unknown> | undefined>;
  /** Extra fields of every client/add. */
  client?: Record<string, unknown>;
  /** Called with each agent as it connects, before its connect refresh is awaited (answers it should give). */
  onAgent?(agent: FakeAgent): void;
  /** Stop the server before closing the agents, as in production (the agents are closed first by default). */
  serverFirst?: boolean;
}

/** A server with one center, one room of clients, and fake agents connected on demand. */
export interface Lab {
  s: TestServer;
  link: AgentLink;
  center: number;
  room: number;
  ips: string[];
  /** Every agent connected so far; closed with the lab. */
  agents: FakeAgent[];
  clients(): Promise<ClientEntry[]>;
  /** The GET /clients entry of `ip`, if any. */
  entry(ip: string): Promise<ClientEntry | undefined>;
  /** The entry of `ip` once its agent runs no command and has a result. */
  settled(ip: string): Promise<ClientEntry>;
  /** Connect a fake agent from `ip` and, unless `settle` is false, wait until its connect refresh is stored. */
  connect(ip: string, options?: Partial<FakeAgentOptions>, settle?: boolean): Promise<FakeAgent>;
  close(): Promise<void>;
}

export async function startLab(options: LabOptions): Promise<Lab> {
  const s = await startServer(options.server);
  const agents: FakeAgent[] = [];
  const close = async () => {
    if (options.serverFirst) await s.close();
    for (const agent of agents) agent.destroy();
    if (!options.serverFirst) await s.close();
  };
  try {
    const populate = options.populate ?? ((server: TestServer) => populateByRest(server, options));
    const { center, room } = populate === false ? { center: 0, room: 0 } : await populate(s, options.ips);
    const link = s.app.container.isRegistered(AgentLink, true) ? s.app.container.resolve(AgentLink) : withoutAgents();
    const clients = async (): Promise<ClientEntry[]> => {
      const r = await s.get('/clients');
      assert.equal(r.status, 200, `GET /clients: ${r.text}`);
      return r.body.clients;
    };
    const entry = async (ip: string) => (await clients()).find((c) => c.addr === ip);
    // eventually() resolves only with a truthy value: an entry.
    const settled = async (ip: string) =>
      (await eventually(async () => {
        const e = await entry(ip);
        return e && e.state !== 'BSY' && e.state !== 'WOL_SENT' && e.last_cmd.result !== 'unknown' ? e : undefined;
      }, `${ip} idle`))!;
    return {
      s,
      link,
      center,
      room,
      ips: options.ips,
      agents,
      clients,
      entry,
      settled,
      async connect(ip, agentOptions = {}, settle = true) {
        const agent = await FakeAgent.connect({ port: link.port(), localAddress: ip, ...agentOptions });
        agents.push(agent);
        options.onAgent?.(agent);
        await agent.waitFor('refresh');
        if (settle) await settled(ip);
        return agent;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

async function populateByRest(s: TestServer, options: LabOptions): Promise<{ center: number; room: number }> {
  const center = await addCenter(s);
  const room = await addRoom(s, center, 'Room', options.netmask);
  const fields = { ...options.client, ...(await options.prepare?.(s)) };
  for (const [i, ip] of options.ips.entries()) await addClient(s, room, ip, macFor(i + 1), fields);
  return { center, room };
}

/** The lab's `link` when its server runs without the agents plugin: any use says so. */
function withoutAgents(): AgentLink {
  return new Proxy({} as AgentLink, {
    get() {
      throw new Error("this lab's server runs without the agents plugin: it has no agent link");
    },
  });
}

/** `count` addresses `<prefix>.1`, `<prefix>.2`, ... */
export function addresses(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}.${i + 1}`);
}
