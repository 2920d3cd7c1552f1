import assert from 'node:assert/strict';
import { AgentLink } from '../../../plugins/agents';
import { FakeAgent, eventually, type FakeAgentOptions } from '../../support/fake-agent';
import { addCenter, addClient, addRoom, macFor } from '../../support/fixtures';
import { startServer, type TestServer } from '../../support/server';

export interface Site {
  s: TestServer;
  link: AgentLink;
  /** Client addresses known to the inventory: 127.0.1.1, 127.0.1.2, ... */
  ips: string[];
  center: number;
  agents: FakeAgent[];
  /** Connect a fake agent from `ip` and wait until its connect refresh is answered and stored. */
  connect(ip: string, options?: Partial<FakeAgentOptions>, settle?: boolean): Promise<FakeAgent>;
  /** The GET /clients entry of `ip`, if any. */
  entry(ip: string): Promise<{ addr: string; state: string; speed?: number; last_cmd: { result: string } } | undefined>;
  close(): Promise<void>;
}

/** A server with `count` clients in one room, and agent settings merged over the defaults. */
export async function site(count: number, agents: Record<string, unknown> = {}): Promise<Site> {
  const s = await startServer({ config: { agents } });
  try {
    const center = await addCenter(s);
    const room = await addRoom(s, center);
    const ips: string[] = [];
    for (let i = 1; i <= count; i++) {
      ips.push(`127.0.1.${i}`);
      await addClient(s, room, `127.0.1.${i}`, macFor(i));
    }
    const link = s.app.container.resolve(AgentLink);
    const fakes: FakeAgent[] = [];
    const entry = async (ip: string) => {
      const r = await s.get('/clients');
      assert.equal(r.status, 200, `GET /clients: ${r.text}`);
      return (r.body.clients as Awaited<ReturnType<Site['entry']>>[]).find((c) => c?.addr === ip);
    };
    return {
      s,
      link,
      ips,
      center,
      agents: fakes,
      entry,
      async connect(ip, options = {}, settle = true) {
        const agent = await FakeAgent.connect({ port: link.port(), localAddress: ip, ...options });
        fakes.push(agent);
        await agent.waitFor('refresh');
        if (settle) await eventually(async () => (await entry(ip))?.last_cmd.result !== 'unknown', `${ip} refreshed`);
        return agent;
      },
      async close() {
        for (const agent of fakes) agent.destroy();
        await s.close();
      },
    };
  } catch (error) {
    await s.close();
    throw error;
  }
}
