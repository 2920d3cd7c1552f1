// Engine-independent: runs once, on SQLite.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { AgentLink } from '../../../plugins/agents';
import type { FakeAgent } from '../../support/fake-agent';
import { startServer } from '../../support/server';
import { dhcpSite, offerOf } from '../dhcp/helpers';
import { discoverPc } from './helpers';

const network = '127.77.3';

/** A real Kea driven by ogserve with discovery on in `network`.0/24 and a pool there for new PCs. */
function site() {
  return dhcpSite({
    server: {
      config: {
        plugins: ['inventory', 'agents', 'pxe-modes', 'live', 'transfers', 'boot', 'enrol', 'dhcp'],
        boot: { public_url: 'http://10.0.2.100', unknown_client: { [`${network}.0/24`]: 'discover' } },
      },
    },
    dhcp: { pools: [{ network: `${network}.0/24`, range: `${network}.200 - ${network}.209` }] },
  });
}

test('an unknown PC is offered an address of the pool; assigned, its reservation is made and it is offered that address from then on', async () => {
  const kea = await site();
  const agents: FakeAgent[] = [];
  try {
    // The new lab's room: no client yet, its network's subnet is there for the pool, with the room's router.
    const room = await kea.room('Lab 3', network);
    const status = await kea.inStep();
    assert.equal(status.in_step, true);
    const subnet = (await kea.kea.command('config-get')).arguments.Dhcp4.subnet4.find((s: any) => s.subnet === `${network}.0/24`);
    assert.deepEqual(
      subnet.pools.map((p: { pool: string }) => p.pool.replace(/\s+/g, '')),
      [`${network}.200-${network}.209`],
    );
    assert.deepEqual(subnet.reservations, []);

    const macs = ['52:54:00:77:03:01', '52:54:00:77:03:02'];
    const relay = `${network}.254`;
    const offered: string[] = [];
    for (const mac of macs) {
      const offer = await kea.discover({ giaddr: relay, mac, arch: 7, userClass: 'iPXE', waitMs: 2000 });
      assert.ok(offer, `an offer to ${mac}`);
      assert.ok(/^127\.77\.3\.20[0-9]$/.test(offer.yiaddr), `${offer.yiaddr} is in the pool`);
      assert.deepEqual([...(offer.options.get(3) ?? [])], [127, 77, 3, 1], "the room's router");
      offered.push(offer.yiaddr);
    }
    const link = kea.s.app.container.resolve(AgentLink);
    // Each boots from its pool address and its agent reports (the address the iPXE request came from).
    for (const [i, mac] of macs.entries()) agents.push(await discoverPc(kea.s, link.port(), { mac, ip: offered[i]! }));

    // One keeps its pool address, the other gets the first free one of the room's network.
    const kept = await kea.s.post('/discovered/assign', { macs: [macs[0]], room, names: 'lab3-pc{nn}' });
    assert.equal(kept.status, 200, kept.text);
    const moved = await kea.s.post('/discovered/assign', { macs: [macs[1]], room, names: 'lab3-pc{nn}', addresses: `${network}.10` });
    assert.equal(moved.status, 200, moved.text);
    assert.deepEqual(moved.body.clients, [{ mac: macs[1], ip: `${network}.10`, name: 'lab3-pc02' }]);
    await kea.inStep();
    const reservations = (await kea.kea.command('config-get')).arguments.Dhcp4.subnet4
      .find((s: any) => s.subnet === `${network}.0/24`)
      .reservations.map((r: any) => [r['hw-address'], r['ip-address'], r.hostname]);
    assert.deepEqual(reservations.sort(), [
      [macs[0], offered[0], 'lab3-pc01'],
      [macs[1], `${network}.10`, 'lab3-pc02'],
    ]);
    // Its next DISCOVER gets its reserved address.
    await offerOf(kea, { giaddr: relay, mac: macs[1]!, arch: 7 }, `${network}.10`, 5000);
    await offerOf(kea, { giaddr: relay, mac: macs[0]!, arch: 7 }, offered[0]!, 5000);
  } finally {
    for (const agent of agents) agent.destroy();
    await kea.close();
  }
});

test('a pool outside its network, or a range the wrong way round, stops the start naming the entry', async () => {
  const start = (pools: unknown) => startServer({ config: { plugins: ['inventory', 'dhcp'], dhcp: { pools } } });
  await assert.rejects(
    start([{ network: '10.1.3.0/24', range: '10.1.4.1-10.1.4.9' }]),
    /dhcp\.pools\[0\]\.range: '10\.1\.4\.1-10\.1\.4\.9' is not two addresses of 10\.1\.3\.0\/24/,
  );
  await assert.rejects(
    start([{ network: '10.1.3.0/24', range: '10.1.3.9 - 10.1.3.1' }]),
    /dhcp\.pools\[0\]\.range: .* ends before it starts/,
  );
});

test.run();
