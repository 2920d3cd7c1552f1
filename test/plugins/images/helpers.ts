import assert from 'node:assert/strict';
import { AgentLink } from '../../../plugins/agents';
import { FakeAgent, eventually, type FakeAgentOptions } from '../../support/fake-agent';
import { addCenter, addClient, addRoom, macFor } from '../../support/fixtures';
import { startServer, type TestServer } from '../../support/server';

export interface ImageSite {
  s: TestServer;
  link: AgentLink;
  /** Clients 127.0.1.1, 127.0.1.2, ... in one room (netmask 255.255.255.0) of center `center`. */
  ips: string[];
  center: number;
  room: number;
  /** A repository with the addresses 10.99.0.1, 127.0.1.250 (the clients' network) and 127.0.2.250. */
  repository: number;
  /** The repository directory (config repository.directory). */
  directory: string;
  connect(ip: string, options?: Partial<FakeAgentOptions>): Promise<FakeAgent>;
  /** The GET /clients entry of `ip` once it no longer runs a command. */
  settled(ip: string): Promise<{ addr: string; state: string; last_cmd: { result: string } }>;
  images(): Promise<any[]>;
  close(): Promise<void>;
}

export const repositoryAddresses = ['10.99.0.1', '127.0.1.250', '127.0.2.250'];

export async function imageSite(count = 1, config: Record<string, unknown> = {}): Promise<ImageSite> {
  const s = await startServer({ config });
  const agents: FakeAgent[] = [];
  try {
    const center = await addCenter(s);
    const room = await addRoom(s, center);
    const repo = await s.post('/repository/add', { name: 'repo', ip: repositoryAddresses });
    assert.equal(repo.status, 200, `repository/add: ${repo.text}`);
    const ips: string[] = [];
    for (let i = 1; i <= count; i++) {
      ips.push(`127.0.1.${i}`);
      await addClient(s, room, `127.0.1.${i}`, macFor(i), { repo_id: repo.body.id });
    }
    const link = s.app.container.resolve(AgentLink);
    const entry = async (ip: string) => {
      const r = await s.get('/clients');
      assert.equal(r.status, 200, `GET /clients: ${r.text}`);
      return (r.body.clients as any[]).find((c) => c.addr === ip);
    };
    const settled = (ip: string) =>
      eventually(async () => {
        const e = await entry(ip);
        return e && e.state !== 'BSY' && e.last_cmd.result !== 'unknown' ? e : undefined;
      }, `${ip} idle`);
    return {
      s,
      link,
      ips,
      center,
      room,
      repository: repo.body.id,
      directory: s.app.config.core.repository.directory,
      async connect(ip, options = {}) {
        const agent = await FakeAgent.connect({ port: link.port(), localAddress: ip, ...options });
        agents.push(agent);
        await agent.waitFor('refresh');
        await settled(ip);
        return agent;
      },
      settled,
      async images() {
        const r = await s.get('/images');
        assert.equal(r.status, 200, `GET /images: ${r.text}`);
        return r.body.images;
      },
      async close() {
        for (const agent of agents) agent.destroy();
        await s.close();
      },
    };
  } catch (error) {
    await s.close();
    throw error;
  }
}

/** What a newer live agent answers to POST /image/create (agent-extensions.md). */
export function createAnswer(request: { body: any }, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    disk: request.body.disk,
    partition: request.body.partition,
    code: request.body.code,
    id: request.body.id,
    name: request.body.name,
    repository: request.body.repository,
    software: 'Ubuntu 22.04 LTS\nbash 5.1\n',
    clonator: 'partclone',
    compressor: 'lzop',
    filesystem: 'EXT4',
    datasize: 8589934592,
    size: 4294967296,
    perms: 420,
    lastupdate: 1664897550,
    checksum: 'D41D8CD98F00B204E9800998ECF8427E',
    ...extra,
  };
}

/** The ctime pattern the web console parses (`%a %b %d %H:%M:%S %Y`). */
export const ctimePattern =
  /^(Sun|Mon|Tue|Wed|Thu|Fri|Sat) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) ( [1-9]|[12][0-9]|3[01]) ([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9]) ([0-9]{4})$/;
