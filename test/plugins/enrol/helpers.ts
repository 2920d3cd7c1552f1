import assert from 'node:assert/strict';
import { pcGet } from '../boot/support';
import { FakeAgent, type FakeAgentOptions, eventually } from '../../support/fake-agent';
import { type StartOptions, type TestServer, deepMerge, startServer } from '../../support/server';

/** The network where unknown PCs are discovered in these tests. */
export const lab = '127.0.9';

/** A server with the plugins discovery needs and enrol on; unknown PCs of 127.0.9.0/24 are discovered. */
export function enrolServer(options: StartOptions & { enrol?: Record<string, unknown>; plugins?: string[] } = {}): Promise<TestServer> {
  const { enrol, plugins, ...rest } = options;
  return startServer(
    deepMerge(
      {
        config: {
          plugins: plugins ?? ['inventory', 'agents', 'pxe-modes', 'live', 'transfers', 'boot', 'enrol'],
          boot: { public_url: 'http://10.0.2.100', unknown_client: { [`${lab}.0/24`]: 'discover', '*': 'local' } },
          enrol: enrol ?? {},
        },
      },
      rest as Record<string, unknown>,
    ) as StartOptions,
  );
}

/** The discovery boot of a PC: its iPXE script, fetched from its address as iPXE does. */
export async function bootUnknown(s: TestServer, mac: string, from: string): Promise<string> {
  const r = await pcGet(s.port, `/boot/ipxe?mac=${mac}`, { from });
  assert.equal(r.status, 200, r.text);
  return r.text;
}

/** A live agent's components, as ogLive's hardware inventory lists them. */
export function hardwareOf(model: string, cpu = 'Intel Core i5-10500 @ 3.10GHz'): string {
  return `mod=${model}\nboa=Dell Inc. 0ABC12\ncpu=${cpu}\nmem=Samsung 8GiB DDR4\nmem=Samsung 8GiB DDR4\ndis=WDC PC SN530 512GB\nnet=Intel I219-LM\n`;
}

/** A PC nobody registered: it boots for discovery, then its agent connects and reports (waited for in GET /discovered). */
export async function discoverPc(
  s: TestServer,
  agentPort: number,
  pc: { mac: string; ip: string; model?: string; serial?: string },
  options: Partial<FakeAgentOptions> = {},
): Promise<FakeAgent> {
  await bootUnknown(s, pc.mac, pc.ip);
  const agent = await FakeAgent.connect({
    port: agentPort,
    localAddress: pc.ip,
    configuration: {
      serial_number: pc.serial ?? `SN-${pc.mac.replace(/:/g, '')}`,
      disk_setup: [{ disk: '1', disk_type: 'DISK', partition: '0', code: '0', filesystem: '', os: '', size: '500107608', used_size: '0' }],
      partition_setup: [],
      link: 1000,
    },
    ...options,
  });
  agent.on('hardware', { body: { hardware: hardwareOf(pc.model ?? 'Dell Inc. OptiPlex 7090') } }, true);
  await eventually(async () => (await discovered(s)).find((d) => d.mac === pc.mac && d.state === 'discovered'), `${pc.mac} discovered`);
  return agent;
}

/** GET /discovered's list. */
export async function discovered(s: TestServer): Promise<any[]> {
  const r = await s.get('/discovered');
  assert.equal(r.status, 200, r.text);
  return r.body.discovered;
}
