// PostgreSQL only: several instances on one database (the other passes skip this file).
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { container } from 'tsyringe';
import { test } from 'uvu';
import { ManualClock } from '../../../testing';
import { PowerClock } from '../../../plugins/power';
import { type ClusterSite, startClusterSite } from '../../support/cluster-site';
import { eventually } from '../../support/fake-agent';
import { addresses } from '../../support/lab';
import { testEngine } from '../../support/test-db';
import { UdpReceiver } from '../../support/udp-receiver';
import { everyDay } from './helpers';

const holders = (site: ClusterSite) => site.servers.filter((s) => s.app.cluster.holds('power-calendars'));

if (testEngine === 'postgresql') {
  test('of two instances on one clock, one fires: a calendar saved on the other wakes each PC once', async () => {
    // The room's directed broadcast (255.255.255.0 netmask): 127.0.1.255.
    const receiver = await UdpReceiver.bind('127.0.1.255');
    const clock = new ManualClock(Date.parse('2027-03-26T12:00:00Z'));
    const services = container.createChildContainer();
    services.register(PowerClock, { useValue: clock });
    const site = await startClusterSite({
      instances: 2,
      ips: addresses('127.0.1', 2),
      container: services,
      config: {
        plugins: ['inventory', 'agents', 'wol', 'jobs', 'groups', 'power', 'cluster'],
        wol: { port: receiver.port },
        power: { time_zone: 'Europe/Madrid' },
      },
      // Only the first instance reaches the room: a wake, from either instance, leaves once from it.
      configOf: (i) => (i === 0 ? { wol: { port: receiver.port, networks: ['127.0.1.0/24'] } } : {}),
    });
    try {
      const leader = (await eventually(() => (holders(site).length === 1 ? holders(site)[0] : undefined), 'one instance holds the role'))!;
      const other = site.servers.find((s) => s !== leader)!;
      const r = await other.post('/power/calendars', { target: { type: 'room', id: site.room }, week: everyDay({ on: '07:45' }) });
      assert.equal(r.status, 200, r.text);
      const fired: number[] = [];
      for (const [i, server] of site.servers.entries()) server.app.events.on('test', 'power.calendar.fired', () => void fired.push(i));
      await clock.advanceTo(Date.parse('2027-03-27T06:45:00Z'));
      assert.equal((await receiver.flush()).length, site.ips.length, 'one packet per PC, not one per instance');
      assert.deepEqual(fired, [site.servers.indexOf(leader)], 'the instance holding the role fired, once');
    } finally {
      await site.close();
      await receiver.close();
    }
  });
}

test.run();
