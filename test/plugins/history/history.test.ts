import assert from 'node:assert/strict';
import { test } from 'uvu';
import { EventStreamClient, type StreamedEvent } from '../../support/event-stream';
import { eventually } from '../../support/fake-agent';
import { hardwareText, historyRows, historySite, pc, reportHardware, reportSoftware, start } from './helpers';

/**
 * A scripted agent reports a sequence of inventories: what GET /client/history keeps, the
 * events announced, and what a report that changes nothing costs (no row).
 */

const changed = (stream: EventStreamClient, type: string) => stream.events.filter((e) => e.type === type).map((e: StreamedEvent) => e.data);

test('hardware: the first report is the starting point; the same report again costs no row; memory removed, disk swapped, exactly', async () => {
  const x = await historySite(1);
  const stream = await EventStreamClient.open(x.s.port, 'types=client.hardware.changed,client.software.changed');
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    const full = [pc.chassis, pc.boot, pc.board, pc.cpu, pc.bank0, pc.bank1, pc.disk, pc.net];
    await reportHardware(x, agent, ip, hardwareText(...full));
    assert.equal(await historyRows(x), 0, 'the first report is where the history starts: nothing changed yet');
    // The same components in another order, and the CPU at another clock (lshw reads the current one).
    const reordered = [pc.net, pc.cpu.replace('3200MHz', '3392MHz'), ...full.slice(0, 3), pc.bank0, pc.bank1, pc.disk];
    await reportHardware(x, agent, ip, hardwareText(...reordered));
    await reportHardware(x, agent, ip, hardwareText(...full));
    assert.equal(await historyRows(x), 0, 'the same report again, twice: no row');

    // Last night: one memory bank went.
    await x.clock.advance(60_000);
    await reportHardware(x, agent, ip, hardwareText(pc.chassis, pc.boot, pc.board, pc.cpu, pc.bank0, pc.disk, pc.net));
    // Then the disk was swapped for a larger one.
    await x.clock.advance(60_000);
    const newDisk = 'dis=WDC WD10EZEX-08WN4A0 931GiB v.1A01';
    await reportHardware(x, agent, ip, hardwareText(pc.chassis, pc.boot, pc.board, pc.cpu, pc.bank0, newDisk, pc.net));
    assert.equal(await historyRows(x), 2, 'one row per change');

    const r = await x.s.get(`/client/history?client=${ip}`);
    assert.equal(r.status, 200, r.text);
    const t1 = new Date(start + 60_000).toISOString();
    const t2 = new Date(start + 120_000).toISOString();
    const [disk, memory] = r.body.changes;
    assert.deepEqual(
      r.body.changes.map(({ id: _id, ...rest }: { id: number }) => rest),
      [
        {
          time: t2,
          kind: 'hardware',
          change: 'changed',
          type: 'dis',
          type_name: 'Discos',
          before: 'Samsung SSD 860 EVO 500GB 465GiB v.RVT0',
          after: 'WDC WD10EZEX-08WN4A0 931GiB v.1A01',
          alerts: [],
        },
        {
          time: t1,
          kind: 'hardware',
          change: 'removed',
          type: 'mem',
          type_name: 'Memorias',
          before: 'Kingston 9905678-031.A00G 8GiB 2400MHz (ChannelB-DIMM0)',
          after: null,
          alerts: ['memory_decreased', 'component_removed'],
        },
      ],
      'newest first, with before and after',
    );
    assert.ok(disk.id > memory.id);
    assert.equal(r.body.next, null);

    const events = await eventually(() => {
      const list = changed(stream, 'client.hardware.changed');
      return list.length === 2 ? list : undefined;
    }, 'two hardware events');
    assert.deepEqual(events, [
      {
        client: ip,
        name: `pc-${ip}`,
        time: t1,
        changes: [
          {
            change: 'removed',
            type: 'mem',
            type_name: 'Memorias',
            before: 'Kingston 9905678-031.A00G 8GiB 2400MHz (ChannelB-DIMM0)',
            after: null,
            alerts: ['memory_decreased', 'component_removed'],
          },
        ],
        alerts: [
          { rule: 'memory_decreased', message: 'memory went from 16 GiB to 8 GiB' },
          { rule: 'component_removed', message: 'removed: mem=Kingston 9905678-031.A00G 8GiB 2400MHz (ChannelB-DIMM0)' },
        ],
      },
      {
        client: ip,
        name: `pc-${ip}`,
        time: t2,
        changes: [
          {
            change: 'changed',
            type: 'dis',
            type_name: 'Discos',
            before: 'Samsung SSD 860 EVO 500GB 465GiB v.RVT0',
            after: 'WDC WD10EZEX-08WN4A0 931GiB v.1A01',
            alerts: [],
          },
        ],
        alerts: [],
      },
    ]);
    assert.deepEqual(changed(stream, 'client.software.changed'), [], 'no software event');
  } finally {
    stream.close();
    await x.close();
  }
});

test('software: a package updated, one removed, one installed, the OS upgraded; the same list again costs nothing', async () => {
  const x = await historySite(1, { history: { alerts: [{ when: 'package_removed', packages: ['VLC*'], name: 'player-removed' }] } });
  const stream = await EventStreamClient.open(x.s.port, 'types=client.software.changed');
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    await reportSoftware(x, agent, ip, 'Ubuntu 22.04.4 LTS\nbash 5.1\nfirefox 115.0\nvlc 3.0.16\nlibreoffice 7.3.7\n');
    await reportSoftware(x, agent, ip, 'Ubuntu 22.04.4 LTS\nlibreoffice 7.3.7\nfirefox 115.0\nvlc 3.0.16\nbash 5.1\n');
    assert.equal(await historyRows(x), 0, 'starting point, then the same packages in another order: no row');
    // Another partition has its own starting point.
    await reportSoftware(x, agent, ip, 'Windows 10 Education\nMozilla Firefox (x64 es-ES) 115.0.2\n', 1);
    await x.clock.advance(1000);
    await reportSoftware(x, agent, ip, 'Ubuntu 24.04.1 LTS\nbash 5.1\nfirefox 128.0\nlibreoffice 7.3.7\ngimp 2.10.36\n');
    const r = await x.s.get(`/client/history?client=${ip}&kind=software`);
    assert.equal(r.status, 200, r.text);
    const time = new Date(start + 1000).toISOString();
    const common = { time, kind: 'software', disk: 1, partition: 2 };
    assert.deepEqual(
      r.body.changes.map(({ id: _id, ...rest }: { id: number }) => rest),
      [
        { ...common, change: 'installed', package: 'gimp', before: null, after: '2.10.36', alerts: [] },
        { ...common, change: 'removed', package: 'vlc', before: '3.0.16', after: null, alerts: ['player-removed'] },
        { ...common, change: 'updated', package: 'firefox', before: '115.0', after: '128.0', alerts: [] },
        { ...common, change: 'os_changed', package: '', before: 'Ubuntu 22.04.4 LTS', after: 'Ubuntu 24.04.1 LTS', alerts: [] },
      ],
      'newest first: the rows of one report in reverse order of the report',
    );
    const [event] = (await eventually(() => {
      const list = changed(stream, 'client.software.changed');
      return list.length === 1 ? list : undefined;
    }, 'one software event'))!;
    assert.deepEqual(event, {
      client: ip,
      name: `pc-${ip}`,
      time,
      disk: 1,
      partition: 2,
      changes: [
        { change: 'os_changed', package: '', before: 'Ubuntu 22.04.4 LTS', after: 'Ubuntu 24.04.1 LTS', alerts: [] },
        { change: 'updated', package: 'firefox', before: '115.0', after: '128.0', alerts: [] },
        { change: 'removed', package: 'vlc', before: '3.0.16', after: null, alerts: ['player-removed'] },
        { change: 'installed', package: 'gimp', before: null, after: '2.10.36', alerts: [] },
      ],
      alerts: [{ rule: 'player-removed', message: 'removed: vlc 3.0.16' }],
    });
    await reportSoftware(x, agent, ip, 'Ubuntu 24.04.1 LTS\nbash 5.1\nfirefox 128.0\nlibreoffice 7.3.7\ngimp 2.10.36\n');
    assert.equal(await historyRows(x), 4, 'the same report again: no row');
  } finally {
    stream.close();
    await x.close();
  }
});

test.run();
