import assert from 'node:assert/strict';
import { test } from 'uvu';
import { TOKEN, send } from '../../support/server';
import { fleet, fleetSite, hardwareText, i7 as i7Line, pc, reportFleet, reportHardware } from './helpers';

/**
 * The fleet reports count what the agents reported (GET /hardware, GET /software), by center
 * or by room, in JSON and CSV, with the hardware categories named as GET /hardware names them:
 * the reference's Spanish names by default, English ones when configured.
 */

const i5 = 'Intel Corp. Intel(R) Core(TM) i5-6500 CPU @ 3.20GHz';
const i7 = 'Intel Corp. Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz';
const samsung = 'Samsung SSD 860 EVO 500GB, 465 GiB';
const wdc = 'WDC WD10EZEX-08WN4A0, 931 GiB';

test('GET /reports/hardware counts PCs by CPU model, memory size, disk model and size, firmware, by center and by room; the inventory agrees', async () => {
  const x = await fleetSite();
  try {
    await reportFleet(x);
    const byCenter = await x.s.get('/reports/hardware?by=center');
    assert.equal(byCenter.status, 200, byCenter.text);
    const north = {
      id: x.north,
      name: 'North',
      clients: 3,
      reported: 3,
      cpu: [
        { value: i5, count: 2 },
        { value: i7, count: 1 },
      ],
      memory: [{ value: '16 GiB', count: 3 }],
      disk: [
        { value: samsung, count: 2 },
        { value: wdc, count: 1 },
      ],
      firmware: [
        { value: 'UEFI', count: 2 },
        { value: 'BIOS', count: 1 },
      ],
    };
    const south = {
      id: x.south,
      name: 'South',
      clients: 2,
      reported: 1,
      cpu: [{ value: i5, count: 1 }],
      memory: [{ value: '16 GiB', count: 1 }],
      disk: [
        { value: samsung, count: 1 },
        { value: wdc, count: 1 },
      ],
      firmware: [{ value: 'UEFI', count: 1 }],
    };
    assert.deepEqual(byCenter.body, {
      by: 'center',
      names: { cpu: 'Microprocesadores', memory: 'Memorias', disk: 'Discos', firmware: 'Tipo de proceso de arranque' },
      groups: [north, south],
      total: {
        clients: 5,
        reported: 4,
        cpu: [
          { value: i5, count: 3 },
          { value: i7, count: 1 },
        ],
        memory: [{ value: '16 GiB', count: 4 }],
        disk: [
          { value: samsung, count: 3 },
          { value: wdc, count: 2 },
        ],
        firmware: [
          { value: 'UEFI', count: 3 },
          { value: 'BIOS', count: 1 },
        ],
      },
    });

    // The counts against the inventory: each PC's GET /hardware holds what it was counted under.
    let cpus = 0;
    let uefi = 0;
    for (const ip of [...fleet.n1, ...fleet.n2, ...fleet.s1]) {
      const hardware = (await x.s.get('/hardware', { client: [ip] })).body.hardware as { type: string; description: string }[];
      if (hardware.some((h) => h.type === 'Microprocesadores' && h.description.startsWith(i5))) cpus++;
      if (hardware.some((h) => h.type === 'Tipo de proceso de arranque' && h.description === 'UEFI')) uefi++;
    }
    assert.equal(cpus, 3, 'three PCs report the i5');
    assert.equal(uefi, 3, 'three PCs boot UEFI');

    const byRoom = await x.s.get('/reports/hardware?by=room');
    assert.equal(byRoom.status, 200, byRoom.text);
    assert.deepEqual(
      byRoom.body.groups.map((g: { id: number; name: string; center: string; clients: number; reported: number; cpu: unknown }) => [
        g.id,
        g.name,
        g.center,
        g.clients,
        g.reported,
        g.cpu,
      ]),
      [
        [x.roomN1, 'N1', 'North', 2, 2, [{ value: i5, count: 2 }]],
        [x.roomN2, 'N2', 'North', 1, 1, [{ value: i7, count: 1 }]],
        [x.roomS1, 'S1', 'South', 2, 1, [{ value: i5, count: 1 }]],
      ],
    );

    const csv = await send(x.s.port, 'GET', '/reports/hardware?by=center&format=csv', undefined, { Authorization: TOKEN });
    assert.equal(csv.status, 200);
    assert.equal(csv.headers['content-type'], 'text/csv; charset=utf-8');
    assert.equal(
      csv.text,
      [
        'center,center_id,category,value,count',
        `North,${x.north},Microprocesadores,${i5},2`,
        `North,${x.north},Microprocesadores,${i7},1`,
        `North,${x.north},Memorias,16 GiB,3`,
        `North,${x.north},Discos,"${samsung}",2`,
        `North,${x.north},Discos,"${wdc}",1`,
        `North,${x.north},Tipo de proceso de arranque,UEFI,2`,
        `North,${x.north},Tipo de proceso de arranque,BIOS,1`,
        `South,${x.south},Microprocesadores,${i5},1`,
        `South,${x.south},Memorias,16 GiB,1`,
        `South,${x.south},Discos,"${samsung}",1`,
        `South,${x.south},Discos,"${wdc}",1`,
        `South,${x.south},Tipo de proceso de arranque,UEFI,1`,
        '',
      ].join('\r\n'),
    );
  } finally {
    await x.close();
  }
});

test('GET /reports/software lists which PCs have which versions, newest first, in JSON and CSV', async () => {
  const x = await fleetSite();
  try {
    await reportFleet(x);
    const r = await x.s.get('/reports/software?name=FireFox');
    assert.equal(r.status, 200, r.text);
    const [p1, p2] = fleet.n1 as [string, string];
    const p4 = fleet.s1[0]!;
    assert.deepEqual(r.body, {
      name: 'FireFox',
      clients: 3,
      packages: [
        {
          name: 'Mozilla Firefox (x64 es-ES)',
          version: '115.0.2',
          count: 1,
          clients: [{ ip: p4, name: `pc-${p4}`, room: 'S1', disk: 1, partition: 1 }],
        },
        { name: 'firefox', version: '128.0', count: 1, clients: [{ ip: p2, name: `pc-${p2}`, room: 'N1', disk: 1, partition: 2 }] },
        { name: 'firefox', version: '115.0', count: 1, clients: [{ ip: p1, name: `pc-${p1}`, room: 'N1', disk: 1, partition: 2 }] },
      ],
    });
    // The inventory agrees: GET /software of each PC lists the line counted.
    assert.ok((await x.s.get('/software', { client: [p1], disk: 1, partition: 2 })).body.software.includes('firefox 115.0'));
    assert.ok((await x.s.get('/software', { client: [p2], disk: 1, partition: 2 })).body.software.includes('firefox 128.0'));

    const csv = await send(x.s.port, 'GET', '/reports/software?name=firefox&format=csv', undefined, { Authorization: TOKEN });
    assert.equal(csv.status, 200);
    assert.equal(csv.headers['content-type'], 'text/csv; charset=utf-8');
    assert.equal(
      csv.text,
      [
        'package,version,ip,client,room,disk,partition',
        `Mozilla Firefox (x64 es-ES),115.0.2,${p4},pc-${p4},S1,1,1`,
        `firefox,128.0,${p2},pc-${p2},N1,1,2`,
        `firefox,115.0,${p1},pc-${p1},N1,1,2`,
        '',
      ].join('\r\n'),
    );
    const none = await x.s.get('/reports/software?name=100%25_match');
    assert.deepEqual(none.body, { name: '100%_match', clients: 0, packages: [] }, 'LIKE wildcards in the name are plain text');
  } finally {
    await x.close();
  }
});

test("with agents.hardware_type_names 'english', the reports and the history name the types in English", async () => {
  const x = await fleetSite({ agents: { hardware_type_names: 'english' } });
  try {
    const agents = await reportFleet(x);
    const r = await x.s.get('/reports/hardware');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.names, { cpu: 'CPU', memory: 'Memory', disk: 'Disk', firmware: 'Boot type' });
    assert.equal(r.body.by, 'center', 'by center unless asked');
    const csv = await send(x.s.port, 'GET', '/reports/hardware?by=room&format=csv', undefined, { Authorization: TOKEN });
    assert.match(csv.text, new RegExp(`^room,room_id,category,value,count\r\nN1,${x.roomN1},CPU,`));
    // A history entry of a memory bank gone says "Memory".
    const ip = fleet.n2[0]!;
    await reportHardware(x, agents.get(ip)!, ip, hardwareText('boo=BIOS', i7Line, pc.bank0, pc.disk));
    const history = await x.s.get(`/client/history?client=${ip}`);
    assert.deepEqual(
      history.body.changes.map((c: { type: string; type_name: string; change: string }) => [c.change, c.type, c.type_name]),
      [['removed', 'mem', 'Memory']],
    );
  } finally {
    await x.close();
  }
});

test.run();
