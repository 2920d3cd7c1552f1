import assert from 'node:assert/strict';
import type { DependencyContainer } from 'tsyringe';
import { FakeAgent, eventually, type FakeAgentOptions } from './fake-agent';
import { addCenter, addClient, addRoom, macFor } from './fixtures';
import type { ClientEntry } from './lab';
import { AgentLink } from '../../plugins/agents';
import { type TestServer, deepMerge, makeTestDir, removeTestStore, startServer } from './server';
import { testDatabaseSection } from './test-db';

/** Instances beat and check each other this often in tests (seconds). */
export const heartbeat = { heartbeat_s: 0.2, expiry_s: 1.5 };

/** Several in-process instances on one PostgreSQL database, a room of clients, and fake agents on any of them. */
export interface ClusterSite {
  /** Instance `names[i]` is `servers[i]`. */
  servers: TestServer[];
  names: string[];
  ips: string[];
  room: number;
  agents: FakeAgent[];
  /** Connect `ip`'s agent to instance `at` and wait until every running instance lists its connect refresh stored. */
  connect(at: number, ip: string, options?: Partial<FakeAgentOptions>): Promise<FakeAgent>;
  /** GET /clients of instance `at`. */
  clients(at: number): Promise<ClientEntry[]>;
  /** Wait until instance `at` lists `ip` as `check` wants. */
  listed(at: number, ip: string, check?: (entry: ClientEntry | undefined) => boolean): Promise<void>;
  /** Stop instance `at` (its agents are dropped by it). */
  stop(at: number): Promise<void>;
  close(): Promise<void>;
}

/** The config that makes an instance one of a cluster named `name`. */
export function clusterConfig(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { cluster: { enabled: true, instance: name, ...heartbeat }, log: { level: 'warn' }, ...extra };
}

export interface ClusterSiteOptions {
  instances: number;
  ips: string[];
  /** Config of every instance. */
  config?: Record<string, unknown>;
  /** Config of instance `i` alone (merged over `config`). */
  configOf?(i: number): Record<string, unknown>;
  /** Parent of every instance's container: test replacements (a clock) registered here. */
  container?: DependencyContainer;
}

export async function startClusterSite(options: ClusterSiteOptions): Promise<ClusterSite> {
  const names = Array.from({ length: options.instances }, (_, i) => String.fromCharCode(97 + i));
  const servers: TestServer[] = [];
  const agents: FakeAgent[] = [];
  const stopped = new Set<number>();
  // The database is named after this directory and outlives any one instance.
  const dir = makeTestDir();
  const close = async () => {
    for (const agent of agents) agent.destroy();
    for (const [i, server] of servers.entries()) if (!stopped.has(i)) await server.close();
    await removeTestStore(dir, 'postgresql');
  };
  try {
    const configOf = (i: number) => deepMerge(clusterConfig(names[i]!, options.config), options.configOf?.(i) ?? {});
    const container = options.container;
    servers.push(await startServer({ engine: 'postgresql', dir, config: configOf(0), container }));
    const database = testDatabaseSection(dir, 'postgresql');
    for (let i = 1; i < names.length; i++)
      servers.push(await startServer({ engine: 'postgresql', config: { ...configOf(i), database }, container }));
    const first = servers[0]!;
    const room = await addRoom(first, await addCenter(first), 'Room');
    for (const [i, ip] of options.ips.entries()) await addClient(first, room, ip, macFor(i + 1));
    const clients = async (at: number): Promise<ClientEntry[]> => {
      const r = await servers[at]!.get('/clients');
      assert.equal(r.status, 200, `GET /clients on ${names[at]}: ${r.text}`);
      return r.body.clients;
    };
    const listed = async (at: number, ip: string, check: (e: ClientEntry | undefined) => boolean = (e) => e !== undefined) => {
      await eventually(async () => check((await clients(at)).find((c) => c.addr === ip)), `${names[at]} to list ${ip} as expected`);
    };
    return {
      servers,
      names,
      ips: options.ips,
      room,
      agents,
      async connect(at, ip, agentOptions = {}) {
        const port = servers[at]!.app.container.resolve(AgentLink).port();
        const agent = await FakeAgent.connect({ port, localAddress: ip, ...agentOptions });
        agents.push(agent);
        await agent.waitFor('refresh');
        for (let i = 0; i < servers.length; i++)
          if (!stopped.has(i)) await listed(i, ip, (e) => e !== undefined && e.state !== 'BSY' && e.last_cmd.result !== 'unknown');
        return agent;
      },
      clients,
      listed,
      async stop(at) {
        stopped.add(at);
        await servers[at]!.close();
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
