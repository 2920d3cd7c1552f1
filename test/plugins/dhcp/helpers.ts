import assert from 'node:assert/strict';
import { type DiscoverOptions, type Offer, discover } from '../../support/dhcp-client';
import { eventually } from '../../support/fake-agent';
import { addCenter, addRoom } from '../../support/fixtures';
import { type Kea, type KeaOptions, startKea } from '../../support/kea';
import { type StartOptions, type TestServer, deepMerge, startServer } from '../../support/server';

// biome-ignore lint/suspicious/noTemplateCurlyInString: iPXE fills in ${mac} itself.
export const bootFiles = { bios: 'undionly.kpxe', uefi: 'snponly.efi', ipxe: 'http://127.0.0.1:8080/boot/ipxe?mac=${mac}' };

export interface DhcpSite {
  kea: Kea;
  s: TestServer;
  center: number;
  /** Every `dhcp.sync.*` event, in order. */
  events: { name: string; payload: any }[];
  /** A relayed DHCPDISCOVER to this Kea. */
  discover(options: Omit<DiscoverOptions, 'serverPort' | 'clientPort'>): Promise<Offer | undefined>;
  /** A room on `network` (x.y.z, /24), its router at .1. */
  room(name: string, network: string, extra?: Record<string, unknown>): Promise<number>;
  status(): Promise<any>;
  /** Until GET /dhcp/status says in step (a deadline of `ms`). */
  inStep(ms?: number): Promise<any>;
  close(): Promise<void>;
}

/** A real Kea, and ogserve with inventory and dhcp driving it (debounce 100 ms, retries up to 1 s apart). */
export async function dhcpSite(
  options: { kea?: KeaOptions; server?: StartOptions; dhcp?: Record<string, unknown> } = {},
): Promise<DhcpSite> {
  const kea = await startKea(options.kea);
  let s: TestServer | undefined;
  try {
    s = await startServer(
      deepMerge(
        {
          config: {
            plugins: ['inventory', 'dhcp'],
            dhcp: {
              control_agent: kea.url,
              boot_files: bootFiles,
              next_server: '127.0.0.1',
              debounce_ms: 100,
              retry_max_ms: 1000,
              ...options.dhcp,
            },
          },
        },
        (options.server ?? {}) as Record<string, unknown>,
      ) as StartOptions,
    );
    const server = s;
    const events: DhcpSite['events'] = [];
    for (const name of ['dhcp.sync.done', 'dhcp.sync.failed'] as const)
      server.app.events.on('test', name, (payload) => void events.push({ name, payload }));
    const center = await addCenter(server);
    const site: DhcpSite = {
      kea,
      s: server,
      center,
      events,
      discover: (o) => discover({ ...o, serverPort: kea.serverPort, clientPort: kea.clientPort }),
      room: (name, network, extra = {}) => addRoom(server, center, name, '255.255.255.0', { gateway: `${network}.1`, ...extra }),
      async status() {
        const r = await server.get('/dhcp/status');
        assert.equal(r.status, 200, r.text);
        return r.body;
      },
      inStep: (ms = 10_000) =>
        eventually(
          async () => {
            const status = await site.status();
            return status.in_step && !status.pending ? status : undefined;
          },
          'Kea in step with the inventory',
          ms,
        ),
      async close() {
        await server.close();
        await kea.close();
      },
    };
    return site;
  } catch (error) {
    await s?.close();
    await kea.close();
    throw error;
  }
}

/** Offers until one gives `ip` (each waits up to 300 ms), within `ms`: the offer. */
export function offerOf(
  site: DhcpSite,
  request: Omit<DiscoverOptions, 'serverPort' | 'clientPort' | 'waitMs'>,
  ip: string,
  ms = 1000,
): Promise<Offer> {
  return eventually<Offer | undefined>(
    async () => {
      const offer = await site.discover({ ...request, waitMs: 300 });
      return offer?.yiaddr === ip ? offer : undefined;
    },
    `an offer of ${ip} to ${request.mac}`,
    ms,
  ) as Promise<Offer>;
}
