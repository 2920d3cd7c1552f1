import assert from 'node:assert/strict';
import { AgentLink } from '../../../plugins/agents';
import { FakeAgent, eventually } from '../../support/fake-agent';
import { addCenter, addClient, addRoom, macFor } from '../../support/fixtures';
import { startServer, type TestServer } from '../../support/server';

export interface ShellOutput {
  addr: string;
  retcode: number | null;
  cmd: string;
  timestamp: number;
  output: string;
}

export interface ShellSite {
  s: TestServer;
  link: AgentLink;
  /** Client addresses 127.0.3.1, 127.0.3.2, ... */
  ips: string[];
  /** One connected, refreshed fake agent per client. */
  agents: FakeAgent[];
  /** POST /shell/output for `ips`, asserting 200. */
  output(ips: string[]): Promise<ShellOutput[]>;
  /** POST /shell/output for `ips` once it lists `count` clients (waits up to 5 s). */
  outputOnce(ips: string[], count?: number): Promise<ShellOutput[]>;
  /** The GET /clients entry of `ip`. */
  entry(ip: string): Promise<{ addr: string; state: string; last_cmd: { result: string } } | undefined>;
  close(): Promise<void>;
}

/** A server with the shell plugin and `count` clients whose fake agents are connected and idle. */
export async function shellSite(count: number, shell: Record<string, unknown> = {}, connected = count): Promise<ShellSite> {
  const s = await startServer({ config: { plugins: ['inventory', 'agents', 'shell'], shell } });
  const agents: FakeAgent[] = [];
  try {
    const room = await addRoom(s, await addCenter(s));
    const ips: string[] = [];
    for (let i = 1; i <= count; i++) {
      ips.push(`127.0.3.${i}`);
      await addClient(s, room, `127.0.3.${i}`, macFor(i));
    }
    const link = s.app.container.resolve(AgentLink);
    const entry = async (ip: string) => {
      const r = await s.get('/clients');
      assert.equal(r.status, 200, `GET /clients: ${r.text}`);
      return (r.body.clients as { addr: string; state: string; last_cmd: { result: string } }[]).find((c) => c.addr === ip);
    };
    for (const ip of ips.slice(0, connected)) {
      const agent = await FakeAgent.connect({ port: link.port(), localAddress: ip });
      agents.push(agent);
      await agent.waitFor('refresh');
      await eventually(async () => (await entry(ip))?.last_cmd.result === 'success', `${ip} refreshed`);
    }
    const output = async (asked: string[]): Promise<ShellOutput[]> => {
      const r = await s.post('/shell/output', { clients: asked });
      assert.equal(r.status, 200, `POST /shell/output: ${r.text}`);
      return r.body.clients;
    };
    return {
      s,
      link,
      ips,
      agents,
      entry,
      output,
      async outputOnce(asked, count = asked.length) {
        let last: ShellOutput[] = [];
        await eventually(async () => (last = await output(asked)).length === count, `${count} result(s) for ${asked.join(',')}`);
        return last;
      },
      async close() {
        for (const agent of agents) agent.destroy();
        await s.close();
      },
    };
  } catch (error) {
    for (const agent of agents) agent.destroy();
    await s.close();
    throw error;
  }
}
