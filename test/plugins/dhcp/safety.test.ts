// Engine-independent: runs once, on SQLite.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { eventually } from '../../support/fake-agent';
import { addClient, macFor } from '../../support/fixtures';
import { dhcpSite, offerOf } from './helpers';

type Json = Record<string, any>;
const ours = (entry: Json) => entry['user-context']?.ogserve === true;

test("the site's own subnet, options, hooks, classes and loggers stay exactly as Kea ran them", async () => {
  const site = await dhcpSite();
  try {
    await site.inStep();
    const before = (await site.kea.command('config-get')).arguments.Dhcp4 as Json;
    const room = await site.room('Lab 1', '127.0.14');
    for (let n = 1; n <= 3; n++) await addClient(site.s, room, `127.0.14.${n + 10}`, macFor(0xe00 + n));
    await site.inStep();
    const after = (await site.kea.command('config-get')).arguments.Dhcp4 as Json;
    assert.deepEqual(
      after.subnet4.filter((s: Json) => !ours(s)),
      before.subnet4.filter((s: Json) => !ours(s)),
      "the site's subnet",
    );
    assert.deepEqual(
      after['client-classes'].filter((c: Json) => !ours(c)),
      before['client-classes'].filter((c: Json) => !ours(c)),
      "the site's class",
    );
    for (const key of ['hooks-libraries', 'option-data', 'loggers', 'lease-database', 'interfaces-config', 'valid-lifetime'])
      assert.deepEqual(after[key], before[key], key);
    const owned = after.subnet4.filter(ours);
    assert.equal(owned.length, 1, "one subnet of ogserve's");
    assert.equal(owned[0].subnet, '127.0.14.0/24');
    // A PC of the site's own subnet still gets an address from its pool.
    const pooled = await site.discover({ giaddr: '127.200.0.254', mac: macFor(0xe99), arch: 0 });
    assert.match(pooled?.yiaddr ?? '', /^127\.200\.0\.(1[0-9]|20)$/);
  } finally {
    await site.close();
  }
});

test('each configuration replaced is kept; a restore puts one back, and a sync puts Kea in step again', async () => {
  const site = await dhcpSite({ dhcp: { backups: 3 } });
  try {
    const room = await site.room('Lab 1', '127.0.15');
    await site.inStep();
    await addClient(site.s, room, '127.0.15.10', macFor(0xf01));
    await site.inStep();
    const listed = await site.s.get('/dhcp/backups');
    assert.equal(listed.status, 200, listed.text);
    const [newest] = listed.body.backups;
    assert.equal(newest.reason, 'sync');
    assert.equal(newest.subnets, 1, "the site's subnet alone: before the PC's");

    const restored = await site.s.post('/dhcp/restore', { id: newest.id });
    assert.equal(restored.status, 200, restored.text);
    assert.equal(restored.body.restored, newest.id);
    const status = await site.status();
    assert.equal(status.in_step, false);
    assert.deepEqual(
      status.differences.missing.map((r: Json) => r.ip),
      ['127.0.15.10'],
    );
    assert.ok(
      site.events.some((e) => e.name === 'dhcp.sync.done' && e.payload.reason === 'restore' && e.payload.backup === restored.body.backup),
      'dhcp.sync.done (restore), naming the backup of what it replaced',
    );
    const sync = await site.s.post('/dhcp/sync');
    assert.equal(sync.status, 200, sync.text);
    assert.equal(sync.body.changed, true);
    await site.inStep();

    for (let n = 0; n < 4; n++) await addClient(site.s, room, `127.0.15.${20 + n}`, macFor(0xf10 + n)).then(() => site.inStep());
    const kept = await site.s.get('/dhcp/backups');
    assert.equal(kept.body.backups.length, 3, 'dhcp.backups: the last 3');
  } finally {
    await site.close();
  }
});

test("a re-addressed PC's old lease is deleted (lease4-del, the site loads lease_cmds)", async () => {
  const site = await dhcpSite();
  try {
    const room = await site.room('Lab 1', '127.0.16');
    const mac = macFor(0xa01);
    const id = await addClient(site.s, room, '127.0.16.10', mac);
    await site.inStep();
    const added = await site.kea.command('lease4-add', { 'ip-address': '127.0.16.10', 'hw-address': '00:00:00:00:0a:01' });
    assert.equal(added.result, 0, added.text);
    const moved = await site.s.post('/client/update', { id, ip: '127.0.16.11' });
    assert.equal(moved.status, 200, moved.text);
    await eventually(
      () => site.events.some((e) => e.name === 'dhcp.sync.done' && e.payload.leases_deleted.includes('127.0.16.10')),
      'the old lease deleted',
    );
    assert.equal((await site.kea.command('lease4-get', { 'ip-address': '127.0.16.10' })).result, 3, 'no lease of the old address');
    await offerOf(site, { giaddr: '127.0.16.254', mac, arch: 0 }, '127.0.16.11');
  } finally {
    await site.close();
  }
});

test('bad input: a restore of an unknown backup is 404, a wrong type 400, each naming the field', async () => {
  const site = await dhcpSite();
  try {
    const unknown = await site.s.post('/dhcp/restore', { id: 999 });
    assert.equal(unknown.status, 404, unknown.text);
    assert.deepEqual([unknown.body.error, unknown.body.field], ['unknown_id', 'id']);
    for (const body of [{ id: 'first' }, { id: 0 }, {}]) {
      const r = await site.s.post('/dhcp/restore', body);
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
      assert.equal(r.body.field, 'id', JSON.stringify(body));
    }
    const withBody = await site.s.request('GET', '/dhcp/status', { x: 1 });
    assert.equal(withBody.status, 400, 'GET /dhcp/status takes no body');
  } finally {
    await site.close();
  }
});

test("a subnet's id is its network's address as a number, kept while the network stays, moved on where the site's subnet holds it", async () => {
  // 127.0.18.0 is 2130711040: the site's subnet holds that id.
  const site = await dhcpSite({ kea: { siteSubnetId: 2130711040 } });
  try {
    const clash = await site.room('Lab 18', '127.0.18');
    const plain = await site.room('Lab 19', '127.0.19');
    await addClient(site.s, clash, '127.0.18.10', macFor(0x1801));
    await addClient(site.s, plain, '127.0.19.10', macFor(0x1901));
    await site.inStep();
    const idsOf = async () =>
      Object.fromEntries(
        ((await site.kea.command('config-get')).arguments.Dhcp4.subnet4 as Json[]).filter(ours).map((s) => [s.subnet, s.id]),
      );
    assert.deepEqual(await idsOf(), { '127.0.18.0/24': 2130711041, '127.0.19.0/24': 2130711296 });
    await addClient(site.s, plain, '127.0.19.11', macFor(0x1902));
    await site.inStep();
    assert.deepEqual(await idsOf(), { '127.0.18.0/24': 2130711041, '127.0.19.0/24': 2130711296 }, 'the same ids after a change');
    await offerOf(site, { giaddr: '127.0.18.254', mac: macFor(0x1801), arch: 0 }, '127.0.18.10');
  } finally {
    await site.close();
  }
});

test.run();
