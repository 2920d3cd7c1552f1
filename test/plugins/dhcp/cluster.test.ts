// PostgreSQL only: several instances on one database (the other passes skip this file).
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { startClusterSite } from '../../support/cluster-site';
import { eventually } from '../../support/fake-agent';
import { addClient, macFor } from '../../support/fixtures';
import { startKea } from '../../support/kea';
import { testEngine } from '../../support/test-db';

if (testEngine === 'postgresql') {
  test("of two instances one pushes to Kea, the other's writes included; when it stops, the other takes over", async () => {
    const kea = await startKea();
    const site = await startClusterSite({
      instances: 2,
      ips: ['127.0.21.10'],
      config: { plugins: ['inventory', 'cluster', 'dhcp'], dhcp: { control_agent: kea.url, debounce_ms: 100, retry_max_ms: 1000 } },
    });
    try {
      const reserved = async (mac: string) => {
        const config = (await kea.command('config-get')).arguments.Dhcp4;
        return config.subnet4.some((s: { reservations: { 'hw-address': string }[] }) =>
          s.reservations.some((r) => r['hw-address'] === mac),
        );
      };
      const holders = () => site.servers.filter((s) => s.app.cluster.holds('dhcp-push'));
      await eventually(() => holders().length === 1, 'one instance holding dhcp-push');
      const pusher = site.servers.indexOf(holders()[0]!);
      const other = 1 - pusher;
      await eventually(() => reserved('00:00:00:00:00:01'), "the site's first client in Kea");

      await addClient(site.servers[other]!, site.room, '127.0.21.11', macFor(0x2111));
      await eventually(() => reserved('00:00:00:00:21:11'), 'a client added on the instance that does not push', 10_000);
      const status = await site.servers[other]!.get('/dhcp/status');
      assert.equal(status.body.pushes_here, false);
      assert.equal(status.body.in_step, true, status.text);

      await site.stop(pusher);
      await eventually(() => site.servers[other]!.app.cluster.holds('dhcp-push'), 'the other instance taking the role', 10_000);
      await addClient(site.servers[other]!, site.room, '127.0.21.12', macFor(0x2112));
      await eventually(() => reserved('00:00:00:00:21:12'), 'a client added once the other pushes', 10_000);
    } finally {
      await site.close();
      await kea.close();
    }
  });
}

test.run();
