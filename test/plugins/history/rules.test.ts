import assert from 'node:assert/strict';
import { test } from 'uvu';
import { hardwareChanges, packageOf, softwareChanges } from '../../../plugins/history/diff';
import { AlertRules } from '../../../plugins/history/rules';
import { cpuModel, diskModel, sizeOf } from '../../../plugins/history/sizes';
import { parsePrometheus } from '../../support/prometheus';
import { TOKEN, send } from '../../support/server';
import { hardwareText, historySite, pc, reportHardware, reportSoftware } from './helpers';

/** What counts as an alert (history.alerts), and the parts of a report the rules read. */

const parse = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((line) => ({ type: line.slice(0, 3), description: line.slice(4) }));

test('sizes as the reference agent and others write them; models without clock, size and firmware version', () => {
  assert.equal(sizeOf('Kingston 9905678-031.A00G 8GiB 2400MHz (ChannelA-DIMM0)'), 8 * 2 ** 30);
  assert.equal(sizeOf('QEMU 8192MiB'), 8 * 2 ** 30);
  assert.equal(sizeOf('16 GB'), 16e9);
  assert.equal(sizeOf('7,8 GiB'), Math.round(7.8 * 2 ** 30), 'a decimal comma');
  assert.equal(sizeOf('Samsung SSD 860 EVO 500GB 465GiB v.RVT0'), 465 * 2 ** 30, 'the last size: the product name may hold one');
  assert.equal(sizeOf('Intel Core i5 3.2GHz'), undefined);
  assert.equal(
    cpuModel('Intel Corp. Intel(R) Core(TM) i5-6500 CPU @ 3.20GHz 3392MHz v.6.94.3'),
    'Intel Corp. Intel(R) Core(TM) i5-6500 CPU @ 3.20GHz',
  );
  assert.equal(diskModel('Samsung SSD 860 EVO 500GB 465GiB v.RVT0'), 'Samsung SSD 860 EVO 500GB');
  assert.deepEqual(packageOf('Mozilla Firefox (x64 es-ES) 115.0.2'), { name: 'Mozilla Firefox (x64 es-ES)', version: '115.0.2' });
  assert.deepEqual(packageOf('Google Chrome'), { name: 'Google Chrome', version: '' });
});

test('differences: repeats count, a type swapped is one change, order does not matter', () => {
  const two = parse(`${pc.bank0}\n${pc.bank0}\n${pc.disk}`);
  assert.deepEqual(hardwareChanges(two, parse(`${pc.disk}\n${pc.bank0}`)), [
    { change: 'removed', type: 'mem', before: pc.bank0.slice(4), after: null },
  ]);
  assert.deepEqual(hardwareChanges(parse(pc.disk), parse(`${pc.disk}\ndis=WDC 931GiB`)), [
    { change: 'added', type: 'dis', before: null, after: 'WDC 931GiB' },
  ]);
  assert.deepEqual(hardwareChanges(two, [...two].reverse()), []);
  assert.deepEqual(softwareChanges(['Ubuntu', 'linux-image 6.1', 'linux-image 6.5'], ['Ubuntu', 'linux-image 6.5', 'linux-image 6.8']), [
    { change: 'updated', package: 'linux-image', before: '6.1', after: '6.8' },
  ]);
});

test('each rule: memory or disk decreased, a component removed (of the types named), a named package removed', () => {
  const rules = new AlertRules([
    { when: 'memory_decreased' },
    { when: 'disk_decreased', name: 'disk-smaller' },
    { when: 'component_removed', types: ['dis'] },
    { when: 'package_removed', packages: ['openssh-*', 'FIREFOX'] },
  ]);
  // A disk swapped for a smaller one, memory grown: only the disk rule.
  const before = parse(`${pc.bank0}\n${pc.disk}`);
  const after = parse(`${pc.bank0}\n${pc.bank1}\ndis=Kingston SA400 223GiB v.1`);
  const changes = hardwareChanges(before, after);
  assert.deepEqual(rules.hardware(before, after, changes), {
    alerts: [{ rule: 'disk-smaller', message: 'disk space went from 465 GiB to 223 GiB' }],
    marks: [[], ['disk-smaller']],
  });
  // A memory bank removed is not a component the rule watches (types: dis).
  const lessMemory = parse(pc.disk);
  assert.deepEqual(rules.hardware(before, lessMemory, hardwareChanges(before, lessMemory)).alerts, [
    { rule: 'memory_decreased', message: 'memory went from 8 GiB to 0 MiB' },
  ]);
  const software = softwareChanges(['Ubuntu', 'firefox 115.0', 'openssh-server 9.6', 'vlc 3.0'], ['Ubuntu']);
  assert.deepEqual(rules.software(software), {
    alerts: [{ rule: 'package_removed', message: 'removed: firefox 115.0; openssh-server 9.6' }],
    marks: [['package_removed'], ['package_removed'], []],
  });
  assert.deepEqual(new AlertRules([]).software(software).alerts, [], 'no rule, no alert');
});

test('a server with rules: the alerts in the history, the events, and ogserve_history_*_total by kind, change and rule', async () => {
  const x = await historySite(
    1,
    { history: { alerts: [{ when: 'disk_decreased' }, { when: 'package_removed', packages: ['bash'] }] } },
    '127.0.7',
  );
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    await reportHardware(x, agent, ip, hardwareText(pc.cpu, pc.bank0, pc.bank1, pc.disk));
    await reportHardware(x, agent, ip, hardwareText(pc.cpu, pc.bank0, 'dis=Kingston SA400 223GiB v.1'));
    await reportSoftware(x, agent, ip, 'Debian 12\nbash 5.2\nvim 9.0\n');
    await reportSoftware(x, agent, ip, 'Debian 12\nvim 9.1\n');
    const history = await x.s.get(`/client/history?client=${ip}`);
    assert.deepEqual(
      history.body.changes.map((c: { change: string; alerts: string[] }) => [c.change, c.alerts]),
      [
        ['updated', []],
        ['removed', ['package_removed']],
        ['changed', ['disk_decreased']],
        ['removed', []],
      ],
      'memory_decreased is not configured here: a bank removed is no alert',
    );
    const scraped = await send(x.s.port, 'GET', '/metrics', undefined, { Authorization: `Bearer ${TOKEN}` });
    assert.equal(scraped.status, 200, scraped.text);
    const metrics = parsePrometheus(scraped.text);
    assert.equal(metrics.value('ogserve_history_changes_total', { kind: 'hardware', change: 'removed' }), 1);
    assert.equal(metrics.value('ogserve_history_changes_total', { kind: 'hardware', change: 'changed' }), 1);
    assert.equal(metrics.value('ogserve_history_changes_total', { kind: 'software', change: 'removed' }), 1);
    assert.equal(metrics.value('ogserve_history_changes_total', { kind: 'software', change: 'updated' }), 1);
    assert.equal(metrics.value('ogserve_history_alerts_total', { rule: 'disk_decreased' }), 1);
    assert.equal(metrics.value('ogserve_history_alerts_total', { rule: 'package_removed' }), 1);
  } finally {
    await x.close();
  }
});

test('a rule the config cannot hold stops the start with one line naming it', async () => {
  await assert.rejects(historySite(1, { history: { alerts: [{ when: 'cpu_changed' }] } }, '127.0.7'), (error: Error) =>
    /history\.alerts/.test(error.message),
  );
});

test.run();
