// Engine-independent: runs once, on SQLite.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { eventually } from '../../support/fake-agent';
import { addClient, macFor } from '../../support/fixtures';
import { parsePrometheus } from '../../support/prometheus';
import { dhcpSite, offerOf } from './helpers';

test('30 PCs added one by one in a room are one config-set', async () => {
  // A debounce of a second: 30 adds one after the other fit in it on a busy machine.
  const site = await dhcpSite({ dhcp: { debounce_ms: 1000 } });
  try {
    const room = await site.room('Lab 30', '127.0.11');
    await site.inStep();
    const before = site.kea.received('config-set');
    for (let n = 1; n <= 30; n++) await addClient(site.s, room, `127.0.11.${n + 10}`, macFor(0xb00 + n));
    const status = await site.inStep();
    assert.equal(site.kea.received('config-set') - before, 1, "one config-set (Kea's log)");
    assert.equal(status.differences.missing.length, 0);
    const done = site.events.filter((e) => e.name === 'dhcp.sync.done');
    assert.equal(done.at(-1)!.payload.reservations >= 30, true, 'the event counts the reservations');
    await offerOf(site, { giaddr: '127.0.11.254', mac: macFor(0xb00 + 30), arch: 0 }, '127.0.11.40');
  } finally {
    await site.close();
  }
});

test('Kea stopped while PCs are added: the writes succeed, the change waits, and Kea is in step once it is back', async () => {
  const site = await dhcpSite();
  try {
    const room = await site.room('Lab 1', '127.0.12');
    await addClient(site.s, room, '127.0.12.10', macFor(0xc01));
    await site.inStep();
    await site.kea.stopServer();
    await addClient(site.s, room, '127.0.12.11', macFor(0xc02));
    await addClient(site.s, room, '127.0.12.12', macFor(0xc03));
    await eventually(
      () => site.events.some((e) => e.name === 'dhcp.sync.failed' && e.payload.reason === 'unreachable'),
      'dhcp.sync.failed (unreachable)',
    );
    const down = await site.status();
    assert.equal(down.reachable, false);
    assert.equal(down.in_step, false);
    assert.equal(down.pending, true, 'the change waits');
    assert.equal(down.last_error.reason, 'unreachable');

    await site.kea.startServer();
    const back = await site.inStep();
    assert.deepEqual(back.differences, { missing: [], extra: [], different: [] });
    assert.equal(back.last_error, null);
    await offerOf(site, { giaddr: '127.0.12.254', mac: macFor(0xc03), arch: 0 }, '127.0.12.12');
  } finally {
    await site.close();
  }
});

test("a configuration Kea refuses (a room on the site's own subnet) is reported, and the inventory write still succeeds", async () => {
  const site = await dhcpSite({
    kea: { siteSubnet: '127.0.13.0/24' },
    server: { config: { plugins: ['inventory', 'agents', 'metrics', 'dhcp'] } },
  });
  try {
    await site.inStep();
    const sets = site.kea.received('config-set');
    const before = await site.kea.command('config-get');
    const room = await site.room('Clash', '127.0.13');
    // The write itself is answered 200: Kea's refusal never blocks it.
    await addClient(site.s, room, '127.0.13.50', macFor(0xd01));
    const failed = await eventually(
      () => site.events.find((e) => e.name === 'dhcp.sync.failed' && e.payload.reason === 'refused'),
      'dhcp.sync.failed (refused)',
    );
    assert.match(failed!.payload.message, /^config-test: /, "Kea's words, config-test first");
    const status = await site.status();
    assert.equal(status.in_step, false);
    assert.equal(status.last_error.reason, 'refused');
    assert.deepEqual(
      status.differences.missing.map((r: { mac: string }) => r.mac),
      ['00:00:00:00:0d:01'],
    );
    assert.equal(site.kea.received('config-set'), sets, 'no config-set after a refused config-test');
    assert.deepEqual((await site.kea.command('config-get')).arguments.Dhcp4, before.arguments.Dhcp4, 'Kea runs what it ran');
    const metrics = parsePrometheus((await site.s.get('/metrics')).text);
    assert.equal(metrics.value('ogserve_dhcp_pushes_total', { result: 'refused' }), 1, 'the refusal counted');
    const sync = await site.s.post('/dhcp/sync');
    assert.equal(sync.status, 400, sync.text);
    assert.equal(sync.body.error, 'kea_refused');
  } finally {
    await site.close();
  }
});

test.run();
